//! Controls of the Quantize lab: tensor source (sample, synthetic with a seed, or your own file),
//! scheme, block size and the model size used for whole-model bytes.

use crate::ui::pages::quant::columns_field::ColumnsField;
use crate::ui::pages::quant::fp4_options_field::Fp4OptionsField;
use crate::ui::pages::quant::gpu_lab::GpuStatus;
use crate::ui::pages::quant::query::{
    describe_blocks, parse_model_billions, shape_text, Device, TensorSource, MAX_BLOCK,
    SAMPLE_TENSORS,
};
use crate::ui::pages::quant::scheme_picker::SchemePicker;
use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::quant::generate::Distribution;
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;
use wasm_bindgen::JsCast;

fn read_file(state: QuantState, ev: leptos::ev::Event) {
    let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    else {
        return;
    };
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    let name = file.name();
    if file.size() > bitbudget_math::quant::tensor_io::MAX_FILE_BYTES as f64 {
        state.upload_error.set(Some(format!(
            "{name}: {} MiB is over the 256 MiB limit",
            (file.size() / 1048576.0).round()
        )));
        return;
    }
    leptos::task::spawn_local(state.load_chosen(name, file));
}

/// The controls panel.
#[component]
pub fn QuantControls() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let source = move || state.query.with(|q| q.tensor.url_value());
    let on_source = move |ev| {
        let v = event_target_value(&ev);
        state.query.update(|q| {
            let _ = q.apply("tensor", &v);
            if v == "upload" {
                q.tensor = TensorSource::Upload;
            }
        });
    };
    let synthetic = move || {
        state
            .query
            .with(|q| matches!(q.tensor, TensorSource::Synthetic(_)))
    };
    let outliers = move || {
        state.query.with(|q| {
            matches!(
                q.tensor,
                TensorSource::Synthetic(Distribution::OutlierChannels { .. })
            )
        })
    };
    // A field's error lasts while its box holds the rejected text: a valid value, typed or set by
    // a preset chip, clears it.
    let block_error = RwSignal::new(None::<String>);
    let set_block = move |block: usize| {
        block_error.set(None);
        state.query.update(|q| q.block = block);
    };
    let field = move |key: &'static str,
                      label: &'static str,
                      get: fn(&crate::ui::pages::quant::query::QuantQuery) -> String,
                      error: RwSignal<Option<String>>| {
        let set_error = error.write_only();
        view! {
            <div class="field-box" class:invalid=move || error.get().is_some()>
                <label for=format!("quant-{key}")>{label}</label>
                <input id=format!("quant-{key}") type="text" inputmode="numeric" data-testid=format!("quant-{key}")
                    prop:value=move || state.query.with(get)
                    on:input=move |ev| {
                        let v = event_target_value(&ev);
                        let mut q = state.query.get_untracked();
                        match q.assign(key, &v) {
                            Some(Ok(())) => { set_error.set(None); state.query.set(q); }
                            Some(Err(e)) => set_error.set(Some(e)),
                            None => {}
                        }
                    } />
                {move || error.get().map(|e| view! { <span class="field-error" role="alert" data-testid=format!("quant-{key}-error")>{e}</span> })}
            </div>
        }
    };
    view! {
        <form class="controls" on:submit=|ev| ev.prevent_default() aria-label="Quantization setup">
            <fieldset>
                <legend>"Tensor"</legend>
                <div class="field-box">
                    <label for="quant-source">"Source"</label>
                    <select id="quant-source" data-testid="quant-source" prop:value=source on:change=on_source>
                        {SAMPLE_TENSORS.iter().map(|n| view! { <option value=format!("sample:{n}")>{format!("MiniLM {n}")}</option> }).collect_view()}
                        <option value="normal">"synthetic: normal"</option>
                        <option value="laplace">"synthetic: Laplace"</option>
                        <option value="uniform">"synthetic: uniform"</option>
                        <option value="outliers">"synthetic: outlier channels"</option>
                        <option value="upload" disabled=move || state.upload.with(|u| u.is_none())>"your file"</option>
                    </select>
                </div>
                <Show when=synthetic>{field("seed", "Seed", |q| q.seed.to_string(), RwSignal::new(None))}</Show>
                <Show when=outliers>
                    <div class="row2">
                        {field("outliers", "Outlier channels", |q| q.outliers.to_string(), RwSignal::new(None))}
                        {field("magnitude", "Magnitude ×", |q| q.magnitude.to_string(), RwSignal::new(None))}
                    </div>
                </Show>
                <div class="field-box">
                    <label for="quant-file">"Your tensor (.npy or .safetensors, F32/F16/BF16)"</label>
                    <input id="quant-file" type="file" accept=".npy,.safetensors" data-testid="quant-file" on:change=move |ev| read_file(state, ev) />
                </div>
                <UploadedPicker />
                {move || state.upload_error.get().map(|e| view! { <p class="field-error" role="alert" data-testid="upload-error">{e}</p> })}
            </fieldset>
            <fieldset>
                <legend>"Scheme"</legend>
                <div class="field-box">
                    <label for="quant-scheme">"Shown in detail"</label>
                    <select id="quant-scheme" data-testid="quant-scheme" prop:value=move || state.query.with(|q| q.scheme.to_string())
                        on:change=move |ev| { if let Ok(s) = event_target_value(&ev).parse::<Scheme>() { state.query.update(|q| q.show(s)) } }>
                        {Scheme::ALL.iter().map(|s| view! { <option value=s.name()>{s.name()}</option> }).collect_view()}
                    </select>
                </div>
                <SchemePicker />
                <Show when=move || state.query.with(|q| q.scheme.needs_columns())>
                    <ColumnsField />
                </Show>
                {field("block", "Block (absmax, zero-point, NF4)", |q| q.block.to_string(), block_error)}
                <div class="examples" role="group" aria-label="Block presets">
                    {[("64", 64usize), ("256", 256)].into_iter().map(|(label, b)| view! {
                        <button type="button" class="chip" data-testid=format!("block-{label}") on:click=move |_| set_block(b)>{label}</button>
                    }).collect_view()}
                    <button type="button" class="chip" data-testid="block-per-row" on:click=move |_| {
                        if let Ok(t) = state.tensor() { set_block(t.shape.last().copied().unwrap_or(t.values.len()).next_multiple_of(2).max(2)) }
                    }>"per row"</button>
                    <button type="button" class="chip" data-testid="block-per-tensor" on:click=move |_| {
                        if let Ok(t) = state.tensor() { set_block(t.values.len().next_multiple_of(2).clamp(2, MAX_BLOCK)) }
                    }>"per tensor"</button>
                </div>
                <p class="help" data-testid="block-hint">{move || {
                    let block = state.query.with(|q| q.block);
                    state.tensor().ok().map(|t| describe_blocks(t.values.len(), block))
                }}</p>
                <label class="check-box">
                    <input type="checkbox" data-testid="quant-dq" prop:checked=move || state.query.with(|q| q.double_quant)
                        on:change=move |ev| state.query.update(|q| q.double_quant = event_target_checked(&ev)) />
                    {move || {
                        let block = state.query.with(|q| q.block);
                        format!(
                            " NF4 double quantization (QLoRA: 8-bit block scales, {:.3} bits/weight at blocks of {block})",
                            bitbudget_math::quant::nf4::bits_per_weight(block, true)
                        )
                    }}
                </label>
                <Show when=move || state.query.with(|q| q.offers_fp4_options())>
                    <Fp4OptionsField />
                </Show>
                <ModelSize />
            </fieldset>
            <DeviceChoice />
        </form>
    }
}

/// CPU or GPU: the GPU can be chosen once the page has found one (its name is shown); otherwise
/// the sentence says why not, and the CPU does everything.
#[component]
fn DeviceChoice() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let choose = move |device: Device| state.query.update(|q| q.device = device);
    // Without a usable GPU the work runs on the CPU, and the choice shows it (a link may ask for
    // the GPU where there is none).
    let in_use = move || match state.query.with(|q| q.device) {
        Device::Gpu if state.gpu.with(GpuStatus::ready) => Device::Gpu,
        _ => Device::Cpu,
    };
    let chosen = move |device: Device| in_use() == device;
    view! {
        <fieldset>
            <legend>"Compute on"</legend>
            <div class="device-choice">
                <label class="check-box">
                    <input type="radio" name="quant-device" data-testid="device-cpu" prop:checked=move || chosen(Device::Cpu)
                        on:change=move |_| choose(Device::Cpu) />
                    " CPU (WebAssembly)"
                </label>
                <label class="check-box">
                    <input type="radio" name="quant-device" data-testid="device-gpu" prop:checked=move || chosen(Device::Gpu)
                        disabled=move || !state.gpu.with(GpuStatus::ready) on:change=move |_| choose(Device::Gpu) />
                    " GPU (WebGPU)"
                </label>
            </div>
            <p class="help" data-testid="gpu-status" aria-live="polite">{move || state.gpu.with(GpuStatus::sentence)}</p>
        </fieldset>
    }
}

/// The model size behind the table's whole-model bytes, in billions of parameters. Invalid text
/// stays in the box with a message; the last valid size keeps driving the table.
#[component]
fn ModelSize() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let error = RwSignal::new(None::<String>);
    view! {
        <div class="field-box" class:invalid=move || error.get().is_some()>
            <label for="quant-params">"Model size for whole-model bytes (billions of params)"</label>
            <input id="quant-params" type="text" inputmode="decimal" data-testid="quant-params"
                prop:value=move || (state.model_params.get() / 1e9).to_string()
                on:input=move |ev| match parse_model_billions(&event_target_value(&ev)) {
                    Ok(params) => { error.set(None); state.model_params.set(params) }
                    Err(e) => {
                        let kept = bitbudget_math::numbers::short(state.model_params.get_untracked() / 1e9, 4);
                        error.set(Some(format!("{e}; the table keeps {kept} billion")))
                    }
                } />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert" data-testid="quant-params-error">{e}</span> })}
        </div>
    }
}

/// Tensor picker for an uploaded safetensors file with several tensors.
#[component]
fn UploadedPicker() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let index = move || {
        state.upload.with(|u| {
            u.as_ref()
                .map(|u| (u.index.clone(), u.tensor.name.clone()))
                .filter(|(i, _)| i.len() > 1)
        })
    };
    move || {
        index().map(|(index, current)| {
            view! {
                <div class="field-box">
                    <label for="quant-pick">"Tensor in the file"</label>
                    <select id="quant-pick" data-testid="quant-pick" on:change=move |ev| state.pick_uploaded(&event_target_value(&ev))>
                        {index.into_iter().map(|t| {
                            let label = format!("{} {} {}{}", t.name, t.dtype, shape_text(&t.shape), if t.supported { "" } else { " (unsupported)" });
                            view! { <option value=t.name.clone() selected=t.name == current disabled=!t.supported>{label}</option> }
                        }).collect_view()}
                    </select>
                </div>
            }
        })
    }
}
