//! Shared state of the Bits page, provided through context.

use crate::ui::pages::bits::query::{parse_amax, BitsQuery};
use bitbudget_math::format::{parse_value, FormatId, Overflow, ParsedValue, ValueError};
use bitbudget_math::quant::scaled::BlockFormat;
use leptos::prelude::*;

/// The Bits page's state: what was typed, the selected format and the overflow mode. Everything
/// else (the parsed value, each format's encoding) is derived.
#[derive(Clone, Copy)]
pub struct BitsState {
    /// The text in the value box, exactly as typed.
    pub text: RwSignal<String>,
    /// The format shown on the number line, and in which `0x` patterns and names are read.
    pub fmt: RwSignal<FormatId>,
    /// Clamp overflow to ±max instead of each format's inf/NaN convention.
    pub saturate: RwSignal<bool>,
    /// The text parsed in the selected format.
    pub parsed: Memo<Result<ParsedValue, ValueError>>,
    /// The last value that parsed; stays put while the text is invalid.
    pub value: Memo<f64>,
    /// The scaled-value view's block format.
    pub block: RwSignal<BlockFormat>,
    /// The scaled-value view's block largest magnitude, as typed.
    pub block_amax: RwSignal<String>,
    /// The scaled-value view's tensor largest magnitude (NVFP4), as typed.
    pub tensor_amax: RwSignal<String>,
}

impl BitsState {
    /// State starting from a URL query.
    pub fn new(initial: &BitsQuery) -> Self {
        let text = RwSignal::new(initial.x.clone());
        let fmt = RwSignal::new(initial.fmt);
        let saturate = RwSignal::new(initial.saturate);
        let parsed = Memo::new(move |_| parse_value(&text.get(), fmt.get()));
        let value = Memo::new(move |prev: Option<&f64>| match parsed.get() {
            Ok(p) => p.value,
            Err(_) => prev.copied().unwrap_or(0.1),
        });
        Self {
            text,
            fmt,
            saturate,
            parsed,
            value,
            block: RwSignal::new(initial.block),
            block_amax: RwSignal::new(initial.block_amax.clone()),
            tensor_amax: RwSignal::new(initial.tensor_amax.clone()),
        }
    }

    /// The overflow mode.
    pub fn overflow(&self) -> Overflow {
        if self.saturate.get() {
            Overflow::Saturate
        } else {
            Overflow::Native
        }
    }

    /// The URL query for the current state.
    pub fn query(&self) -> BitsQuery {
        BitsQuery {
            x: self.text.get(),
            fmt: self.fmt.get(),
            saturate: self.saturate.get(),
            block: self.block.get(),
            // Only what reads back: a value being typed, or the tensor's amax of a format
            // without one, stays out of the link.
            block_amax: valid_amax(self.block_amax.get()),
            tensor_amax: if self.block.get() == BlockFormat::Nvfp4 {
                valid_amax(self.tensor_amax.get())
            } else {
                String::new()
            },
        }
    }

    /// Sets the value to the bit pattern `bits` of `id` (what clicking a bit does): the text
    /// becomes the `0x` pattern, so the value is exact.
    pub fn set_pattern(&self, id: FormatId, bits: u32) {
        self.fmt.set(id);
        self.text.set(pattern_text(id, bits));
    }

    /// Selects `id`; a typed `0x` pattern is rewritten as the same value's pattern in `id`.
    pub fn select(&self, id: FormatId) {
        let text = self.text.get_untracked();
        if text.trim().starts_with("0x") || text.trim().starts_with("0b") {
            let bits = id.encode(self.value.get_untracked(), self.overflow_untracked());
            self.text.set(pattern_text(id, bits));
        }
        self.fmt.set(id);
    }

    fn overflow_untracked(&self) -> Overflow {
        if self.saturate.get_untracked() {
            Overflow::Saturate
        } else {
            Overflow::Native
        }
    }
}

/// `0x…` with as many hex digits as the format needs.
pub fn pattern_text(id: FormatId, bits: u32) -> String {
    format!(
        "0x{:0w$x}",
        bits & id.mask(),
        w = id.bits().div_ceil(4) as usize
    )
}

/// `text` when it is a magnitude the link can carry ([`parse_amax`]), else empty.
fn valid_amax(text: String) -> String {
    match parse_amax(&text) {
        Ok(Some(_)) => text.trim().to_string(),
        _ => String::new(),
    }
}
