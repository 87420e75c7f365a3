//! The Columns box of the Quantize lab, shown while the scheme in detail quantizes 2D blocks
//! (`fp8-128x128`): how many columns its rows have, and where that count comes from.

use crate::ui::pages::quant::query::QuantQuery;
use crate::ui::pages::quant::state::QuantState;
use bitbudget_math::numbers::grouped;
use leptos::prelude::*;

/// Where `q`'s scheme takes its columns on a tensor of `shape`, as a sentence: "fp8-128x128
/// reads rows of 512 columns (the tensor's last dimension)", or why it cannot run.
pub fn columns_text(q: &QuantQuery, shape: &[usize]) -> String {
    let s = q.scheme;
    match q.block_for(s, shape) {
        Ok(cols) => {
            let from = match (shape.len() >= 2, q.cols) {
                (true, _) => "the tensor's last dimension; this box is for 1D tensors",
                (false, Some(_)) => "this box",
                (false, None) => "the whole vector as one row",
            };
            format!("{s} reads rows of {} columns ({from})", grouped(cols))
        }
        Err(e) => format!("{s} cannot run: {e}"),
    }
}

/// The Columns box (URL key `cols`). Text that is not a count of 1..=16,777,216, or a count
/// that does not divide the current tensor's values into whole rows, stays in the box with a
/// message; the last good count keeps driving the lab.
#[component]
pub fn ColumnsField() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let error = RwSignal::new(None::<String>);
    let shape = move || {
        state
            .current
            .with(|t| t.as_ref().map(|t| t.shape.clone()).ok())
    };
    let on_input = move |ev| {
        let v = event_target_value(&ev);
        let mut q = state.query.get_untracked();
        let checked = match q.assign("cols", &v) {
            Some(Ok(())) => state.current.with_untracked(|t| match t {
                Ok(t) => q
                    .block_for(q.scheme, &t.shape)
                    .map(|_| ())
                    .map_err(|e| e.to_string()),
                Err(_) => Ok(()),
            }),
            Some(Err(e)) => Err(e),
            None => Ok(()),
        };
        match checked {
            Ok(()) => {
                error.set(None);
                state.query.set(q);
            }
            Err(e) => error.set(Some(format!("{e}; the lab keeps the last good count"))),
        }
    };
    let used = move || {
        let shape = shape()?;
        Some(state.query.with(|q| columns_text(q, &shape)))
    };
    view! {
        <div class="field-box" class:invalid=move || error.get().is_some()>
            <label for="quant-cols">"Columns per row (fp8-128x128's 128×128 blocks)"</label>
            <input id="quant-cols" type="text" inputmode="numeric" data-testid="quant-cols" placeholder="one row"
                prop:value=move || state.query.with(|q| q.cols.map_or(String::new(), |c| c.to_string()))
                on:input=on_input />
            {move || error.get().map(|e| view! { <span class="field-error" role="alert" data-testid="quant-cols-error">{e}</span> })}
            <p class="help" data-testid="cols-used">{used}</p>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::quant::scheme::Scheme;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn says_where_the_columns_come_from() {
        let mut q = QuantQuery {
            scheme: Scheme::Fp8Block,
            ..QuantQuery::default()
        };
        assert_eq!(
            columns_text(&q, &[256, 512]),
            "fp8-128x128 reads rows of 512 columns (the tensor's last dimension; this box is for 1D tensors)"
        );
        assert_eq!(
            columns_text(&q, &[1000]),
            "fp8-128x128 reads rows of 1,000 columns (the whole vector as one row)"
        );
        q.cols = Some(300);
        assert_eq!(
            columns_text(&q, &[1000]),
            "fp8-128x128 cannot run: 1000 weights is not a whole number of rows of 300 columns (100 left over)"
        );
    }
}
