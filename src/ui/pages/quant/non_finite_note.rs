//! A warning when the tensor holds NaN or ±inf: which values the metrics skip, and which schemes
//! lost finite values to an infinite block scale.

use crate::ui::pages::quant::state::QuantState;
use leptos::prelude::*;

/// The sentence to show for `skipped` non-finite inputs and the schemes (with counts) that lost
/// values; `None` when there is nothing to say.
pub fn non_finite_message(skipped: usize, lost: &[(String, usize)]) -> Option<String> {
    if skipped == 0 && lost.is_empty() {
        return None;
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut text = format!(
        "{} NaN or ±inf: the metrics skip {}.",
        plural(skipped, "value is", "values are"),
        if skipped == 1 { "it" } else { "them" }
    );
    if !lost.is_empty() {
        let names: Vec<String> = lost
            .iter()
            .map(|(name, n)| format!("{name} ({})", plural(*n, "value", "values")))
            .collect();
        text.push_str(&format!(
            " An infinity makes a block's scale infinite, so its finite neighbours come back NaN and \
             the error is infinite, as in llama.cpp: {}.",
            names.join(", ")
        ));
    }
    Some(text)
}

/// Shows [`non_finite_message`] for the latest results; renders nothing for a clean tensor.
#[component]
pub fn NonFiniteNote() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let message = move || {
        state.results.with(|r| {
            let rows = &r.as_ref()?.rows;
            let skipped = rows.first().map_or(0, |row| row.metrics.skipped);
            let lost: Vec<(String, usize)> = rows
                .iter()
                .filter(|row| row.metrics.lost > 0)
                .map(|row| (row.scheme.name().to_string(), row.metrics.lost))
                .collect();
            non_finite_message(skipped, &lost)
        })
    };
    move || {
        message().map(|m| view! { <p class="non-finite-note" role="status" data-testid="non-finite-note">{m}</p> })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn says_nothing_for_a_clean_tensor_and_counts_otherwise() {
        assert_eq!(non_finite_message(0, &[]), None);
        assert_eq!(
            non_finite_message(1, &[]).unwrap(),
            "1 value is NaN or ±inf: the metrics skip it."
        );
        let m = non_finite_message(2, &[("q8_0".into(), 31), ("nf4".into(), 1)]).unwrap();
        assert!(m.starts_with("2 values are NaN or ±inf: the metrics skip them."));
        assert!(m.ends_with("q8_0 (31 values), nf4 (1 value)."), "{m}");
    }
}
