//! The scaled-value view: the typed value through a block-scaled format (MXFP8, MXFP4, NVFP4,
//! FP8 1×128), showing the block scale in its own format (E8M0, unsigned E4M3, FP32) bit by bit,
//! NVFP4's tensor scale, the element code, and code × block scale × tensor scale.

use crate::ui::pages::bits::query::parse_amax;
use crate::ui::pages::bits::state::BitsState;
use bitbudget_math::numbers::short;
use bitbudget_math::quant::scaled::{scaled, BlockFormat, Scaled};
use leptos::prelude::*;

/// The scale's bits as fields (name, bits as text): E8M0 is all exponent; UE4M3 has no sign (its
/// top bit is unused and 0), four exponent and three mantissa bits; FP32 1 + 8 + 23.
pub fn scale_fields(format: BlockFormat, bits: u32) -> Vec<(&'static str, String)> {
    let field = |from: u32, width: u32| {
        (0..width)
            .rev()
            .map(|i| {
                if bits >> (from + i) & 1 == 1 {
                    '1'
                } else {
                    '0'
                }
            })
            .collect::<String>()
    };
    match format.scale_format() {
        "E8M0" => vec![("exponent", field(0, 8))],
        "UE4M3" => vec![
            ("unused", field(7, 1)),
            ("exponent", field(3, 4)),
            ("mantissa", field(0, 3)),
        ],
        _ => vec![
            ("sign", field(31, 1)),
            ("exponent", field(23, 8)),
            ("mantissa", field(0, 23)),
        ],
    }
}

/// The equation in words: "13 (E4M3 code 0x55) × 2^-7 (E8M0 0x78) = 0.1015625".
pub fn equation(s: &Scaled) -> String {
    let element = s.format.element();
    let scale = if s.format.scale_format() == "E8M0" {
        format!("2^{}", s.block_scale.log2() as i32)
    } else {
        short(s.block_scale, 6)
    };
    let tensor = if s.format == BlockFormat::Nvfp4 {
        format!(" × {} (FP32 tensor scale)", short(s.tensor_scale, 6))
    } else {
        String::new()
    };
    format!(
        "{} ({} code 0x{:02x}) × {scale} ({} block scale){tensor} = {}",
        short(s.element, 6),
        element.label(),
        s.code,
        s.format.scale_format(),
        short(s.value, 8)
    )
}

/// The block format, the block's (and tensor's) largest magnitude, and the result.
#[component]
pub fn ScaledView() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let (format, block_text, tensor_text) = (state.block, state.block_amax, state.tensor_amax);
    // An empty box means |x| (the block's amax is at least the value itself).
    let amax = move |text: &str| -> Result<f64, String> {
        Ok(parse_amax(text)?.unwrap_or(state.value.get().abs()))
    };
    let result = Memo::new(move |_| {
        let block = amax(&block_text.get())?;
        // Only NVFP4 has a tensor scale: its box is ignored (and hidden) for the others.
        let tensor = match format.get() == BlockFormat::Nvfp4
            && !tensor_text.with(|t| t.trim().is_empty())
        {
            true => amax(&tensor_text.get())?,
            false => block,
        };
        scaled(format.get(), state.value.get(), block, tensor)
    });
    view! {
        <section class="scaled-view" aria-labelledby="scaled-title" data-testid="scaled-view">
            <h3 id="scaled-title">"Scaled values: code × block scale × tensor scale"</h3>
            <p class="lede">"Block formats store a small code per value and one scale per block, itself in a narrow format: OCP MX's E8M0 is a power of two, NVFP4's unsigned E4M3 has no sign bit and is multiplied by an FP32 scale per tensor, DeepSeek-V3's 1×128 tiles keep an FP32 scale. Empty boxes mean the block's largest magnitude is the value itself."</p>
            <div class="scaled-controls">
                <label>"Format "
                    <select data-testid="scaled-format" prop:value=move || format.get().name() on:change=move |ev| if let Ok(f) = event_target_value(&ev).parse() { format.set(f) }>
                        {BlockFormat::ALL.into_iter().map(|f| view! { <option value=f.name() selected=move || format.get() == f>{f.label()}</option> }).collect_view()}
                    </select>
                </label>
                <label>"Block's largest |x| "
                    <input type="text" inputmode="decimal" data-testid="scaled-block-amax" placeholder="|x|" prop:value=move || block_text.get()
                        on:input=move |ev| block_text.set(event_target_value(&ev)) />
                </label>
                <Show when=move || format.get() == BlockFormat::Nvfp4>
                    <label>"Tensor's largest |x| "
                        <input type="text" inputmode="decimal" data-testid="scaled-tensor-amax" placeholder="block's" prop:value=move || tensor_text.get()
                            on:input=move |ev| tensor_text.set(event_target_value(&ev)) />
                    </label>
                </Show>
            </div>
            {move || match result.get() {
                Err(e) => view! { <p class="field-error" role="alert" data-testid="scaled-error">{e}</p> }.into_any(),
                Ok(s) => view! {
                    <p class="mono scaled-bits" data-testid="scaled-scale-bits">
                        {format!("{} scale: ", s.format.scale_format())}
                        {scale_fields(s.format, s.scale_bits).into_iter().map(|(name, bits)| view! {
                            <span class=format!("scale-field {name}") title=name>{bits}</span>" "
                        }).collect_view()}
                    </p>
                    <p class="mono" data-testid="scaled-equation">{equation(&s)}</p>
                }.into_any(),
            }}
        </section>
    }
}
