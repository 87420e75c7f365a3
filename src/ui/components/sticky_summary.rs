//! The result in one line that stays at the top of a phone's screen while the controls below the
//! results are changed (Memory and Quantize), with a button back up to the results.

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
/// they scroll past; "Results ↑" links back to the element with id `results_id` (a fragment
/// link, no script). Not a live region: the full result above it is the one screen readers hear.
#[component]
pub fn StickySummary(
    /// The summary, a few words (it wraps rather than cut a word on a narrow phone).
    #[prop(into)]
    text: Signal<String>,
    /// Its colour.
    #[prop(into)]
    tone: Signal<Tone>,
    /// The id of the results' element that "Results ↑" links to.
    results_id: &'static str,
    /// `data-testid` of the strip.
    testid: &'static str,
) -> impl IntoView {
    view! {
        <div class="sticky-summary" data-testid=testid>
            <span class="brief" class:good=move || tone.get() == Tone::Good class:bad=move || tone.get() == Tone::Bad>{text}</span>
            <a href=format!("#{results_id}")>"Results ↑"</a>
        </div>
    }
}
