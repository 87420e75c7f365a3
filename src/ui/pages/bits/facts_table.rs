//! The facts table: range, precision and cost of every format, the selected one highlighted.

use crate::ui::components::term::{with_terms, Term};
use crate::ui::pages::bits::state::BitsState;
use bitbudget_math::format::{FormatFacts, FormatId};
use bitbudget_math::numbers::short;
use leptos::prelude::*;

fn opt(v: Option<f64>) -> String {
    v.map(|v| short(v, 4)).unwrap_or_else(|| "—".into())
}

fn yes_no(b: bool) -> &'static str {
    if b {
        "yes"
    } else {
        "no"
    }
}

/// GB (10^9 bytes) with up to 3 significant digits.
fn gb(bytes: u64) -> String {
    format!("{} GB", short(bytes as f64 / 1e9, 3))
}

/// A table of every format's facts.
#[component]
pub fn FactsTable() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let rows = FormatId::ALL
        .into_iter()
        .map(|id| {
            let f = FormatFacts::of(id);
            view! {
                <tr class:selected=move || state.fmt.get() == id data-testid=format!("facts-{id}")>
                    <th scope="row">{id.label()}</th>
                    <td>{f.bits}</td>
                    <td>{with_terms(&f.fields)}</td>
                    <td>{short(f.max, 4)}</td>
                    <td>{opt(f.min_normal)}</td>
                    <td>{opt(f.min_subnormal)}</td>
                    <td>{short(f.epsilon, 3)}</td>
                    <td>{format!("{:.2}", f.decimal_digits)}</td>
                    <td>{yes_no(f.has_inf)}" / "{yes_no(f.has_nan)}</td>
                    <td>{format!("{} B", f.bytes_per_param)}</td>
                    <td>{gb(f.bytes_per_billion)}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Format facts">
            <table class="facts">
                <thead>
                    <tr>
                        <th scope="col">"format"</th><th scope="col">"bits"</th><th scope="col" title="sign + exponent + mantissa bits">"s+e+m"</th>
                        <th scope="col">"max"</th><th scope="col">"min normal"</th><th scope="col">"min "<Term word="subnormal" /></th>
                        <th scope="col"><Term word="epsilon" /></th><th scope="col">"decimal digits"</th><th scope="col">"inf / NaN"</th>
                        <th scope="col">"per param"</th><th scope="col">"1B params"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
