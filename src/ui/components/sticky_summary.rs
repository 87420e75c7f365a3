//! The result in one line that stays at the top of a phone's screen while the controls below the
//! results are changed (Memory and Quantize), with a button back up to the results.

use leptos::html::Div;
use leptos::prelude::*;

/// Whether the summary reads as good news, bad news or neither (its colour).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// The job fits: the page's "fits" colour.
    Good,
    /// It does not: the danger colour.
    Bad,
    /// No verdict (no GPU chosen, a metric without a threshold): the text colour.
    Plain,
}

/// One line summing up the results, shown only where the controls sit below the results (the
/// single-column layout under 960 px, `assets/style.css`) and held at the top of the screen while
/// they scroll past; "Results ↑" scrolls back to the element with id `results_id`. Not a live
/// region: the full result above it is the one screen readers hear.
#[component]
pub fn StickySummary(
    /// The summary (a few words; the CSS cuts it with an ellipsis on one line).
    #[prop(into)]
    text: Signal<String>,
    /// Its colour.
    #[prop(into)]
    tone: Signal<Tone>,
    /// The id of the results' element that "Results ↑" scrolls to.
    results_id: &'static str,
    /// `data-testid` of the strip.
    testid: &'static str,
) -> impl IntoView {
    let strip = NodeRef::<Div>::new();
    let back = move |_| {
        let target = strip
            .get_untracked()
            .and_then(|s| s.owner_document())
            .and_then(|d| d.get_element_by_id(results_id));
        if let Some(t) = target {
            t.scroll_into_view();
        }
    };
    view! {
        <div class="sticky-summary" node_ref=strip data-testid=testid>
            <span class="brief" class:good=move || tone.get() == Tone::Good class:bad=move || tone.get() == Tone::Bad>{text}</span>
            <button type="button" class="link" on:click=back>"Results ↑"</button>
        </div>
    }
}
