//! Jargon with a short explanation on hover and on keyboard focus, from one glossary. A word in
//! running text becomes a focusable [`Term`] (CSS shows the explanation from `data-tip` while it
//! is hovered or focused, and a visually hidden copy linked by `aria-describedby` reads it to
//! screen readers); a control's label gets a small "?" button, [`Jargon`], described the same way.

use leptos::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Words a first-time reader may not know, each with one or two sentences. Matched case-insensitively in running text by [`split_terms`]; longer entries first,
/// so "min subnormal" is not split at "subnormal".
pub const GLOSSARY: [(&str, &str); 11] = [
    (
        "two's complement",
        "The usual signed-integer encoding: the top bit counts −2^(n−1) and the others count up, so INT8 spans −128 to 127.",
    ),
    (
        "unsigned",
        "Every bit counts up from 0: UINT8 spans 0 to 255 and has no negative values.",
    ),
    (
        "binary64",
        "IEEE 754's 64-bit float (FP64, a JavaScript number, Rust's f64): what you type is first read into it, about 16 significant digits up to 1.8e308.",
    ),
    (
        "subnormal",
        "A value below the smallest normal one: the exponent field is all zeros and the implicit leading 1 becomes 0, so precision fades out gradually towards zero.",
    ),
    (
        "epsilon",
        "The gap between 1 and the next larger value of the format: its relative precision.",
    ),
    (
        "mantissa",
        "The stored fraction bits after the implicit leading 1 (also called the significand): more bits, more precision.",
    ),
    (
        "exponent",
        "The power of two, stored with a bias added: its bits set the range from the smallest to the largest value.",
    ),
    (
        "saturate",
        "Clamp a value beyond the largest one to ±max instead of turning it into ±inf or NaN.",
    ),
    (
        "data, tensor and pipeline parallelism",
        "Data parallel: each GPU runs the whole model on its own share of the batch. Tensor parallel: each layer's matrices are split across GPUs. Pipeline parallel: the layers are split into consecutive stages, one per GPU. GPUs in the job = data × tensor × pipeline.",
    ),
    (
        "DDP, ZeRO and FSDP",
        "DDP (PyTorch's DistributedDataParallel, FSDP's NO_SHARD) keeps a full copy of everything on every GPU. ZeRO-1 splits the optimizer states across the data-parallel GPUs, ZeRO-2 also the gradients (FSDP SHARD_GRAD_OP), ZeRO-3 also the weights (FSDP FULL_SHARD).",
    ),
    (
        "SQNR",
        "Signal-to-quantization-noise ratio: the tensor's power over the error's power, in decibels. Each extra bit adds about 6 dB.",
    ),
];

/// The explanation of `word` (case-insensitive), if the glossary has one.
pub fn explanation(word: &str) -> Option<&'static str> {
    GLOSSARY
        .iter()
        .find(|(w, _)| w.eq_ignore_ascii_case(word))
        .map(|(_, tip)| *tip)
}

/// Splits `text` into pieces, each plain (`None`) or a glossary word (`Some(word)` with the
/// glossary's spelling; the piece keeps the text's own capitals). Only whole words match.
pub fn split_terms(text: &str) -> Vec<(&str, Option<&'static str>)> {
    let lower = text.to_ascii_lowercase();
    let mut pieces = Vec::new();
    let mut rest = 0;
    while rest < text.len() {
        let found = GLOSSARY
            .iter()
            .filter_map(|(w, _)| {
                let w_lower = w.to_ascii_lowercase();
                let mut from = rest;
                while let Some(i) = lower[from..].find(&w_lower).map(|i| i + from) {
                    let end = i + w.len();
                    let before = lower[..i].chars().next_back();
                    let after = lower[end..].chars().next();
                    let letter =
                        |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
                    if !letter(before) && !letter(after) {
                        return Some((i, end, *w));
                    }
                    from = end;
                }
                None
            })
            .min_by_key(|(i, end, _)| (*i, usize::MAX - end));
        match found {
            Some((i, end, w)) => {
                if i > rest {
                    pieces.push((&text[rest..i], None));
                }
                pieces.push((&text[i..end], Some(w)));
                rest = end;
            }
            None => {
                pieces.push((&text[rest..], None));
                rest = text.len();
            }
        }
    }
    pieces
}

static NEXT_ID: AtomicUsize = AtomicUsize::new(0);

/// One glossary word, focusable, with its explanation on hover and focus; a word the glossary
/// does not know is shown as plain text.
#[component]
pub fn Term(
    /// The glossary entry (case-insensitive).
    word: &'static str,
    /// The text shown, when it differs from `word` (e.g. capitalised).
    #[prop(optional, into)]
    text: Option<String>,
) -> impl IntoView {
    let shown = text.unwrap_or_else(|| word.to_string());
    let Some(tip) = explanation(word) else {
        return view! { <span>{shown}</span> }.into_any();
    };
    let id = format!("term-tip-{}", NEXT_ID.fetch_add(1, Ordering::Relaxed));
    let tip_id = id.clone();
    view! {
        <span class="term" tabindex="0" data-term=word.to_ascii_lowercase() data-tip=tip aria-describedby=id>
            {shown}
            <span class="sr-only" id=tip_id>{format!(" ({tip})")}</span>
        </span>
    }
    .into_any()
}

/// A "?" after a control's label that explains `word` (a glossary entry) on hover and on keyboard
/// focus; the explanation is the button's accessible description (a `title` alone is not read on
/// focus).
#[component]
pub fn Jargon(
    /// The glossary entry explained ("DDP, ZeRO and FSDP").
    word: &'static str,
    /// Unique suffix for the explanation's id and the test id.
    id: &'static str,
) -> impl IntoView {
    let tip_id = format!("jargon-{id}");
    let text = explanation(word).unwrap_or_default();
    view! {
        <span class="jargon">
            <button type="button" class="jargon-button" aria-label=format!("What is {word}?") aria-describedby=tip_id.clone() data-testid=format!("jargon-{id}")>"?"</button>
            <span class="jargon-tip" role="tooltip" id=tip_id>{text}</span>
        </span>
    }
}

/// `text` with every glossary word in it shown as a [`Term`].
pub fn with_terms(text: &str) -> impl IntoView {
    split_terms(text)
        .into_iter()
        .map(|(piece, word)| match word {
            Some(w) => view! { <Term word=w text=piece.to_string() /> }.into_any(),
            None => piece.to_string().into_any(),
        })
        .collect_view()
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn glossary_words_are_found_whole_and_in_any_case() {
        assert_eq!(
            split_terms("beyond the range of binary64 (about 1.8e308)"),
            [
                ("beyond the range of ", None),
                ("binary64", Some("binary64")),
                (" (about 1.8e308)", None)
            ]
        );
        assert_eq!(
            split_terms("Epsilon is the gap"),
            [("Epsilon", Some("epsilon")), (" is the gap", None)]
        );
        assert_eq!(split_terms("exponents"), [("exponents", None)]);
        assert_eq!(split_terms("min_subnormal"), [("min_subnormal", None)]);
        assert_eq!(split_terms(""), []);
    }

    #[wasm_bindgen_test]
    fn every_glossary_word_has_a_sentence() {
        for (word, tip) in GLOSSARY {
            assert!(tip.ends_with('.') && tip.len() > 30, "{word}: {tip}");
            assert_eq!(explanation(&word.to_uppercase()), Some(tip));
        }
    }
}
