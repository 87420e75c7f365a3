//! The chapters in order, and the component that shows one.

use super::bytes_widget::BytesWidget;
use super::chapter_texts::{ACCUMULATION_TEXT, CHECKPOINTING_TEXT, OPTIMIZERS_TEXT};
use super::chapter_texts::{ADAPTERS_TEXT, FLASH_TEXT, QUANTIZE_TEXT};
use super::chapter_texts::{BYTES, FORMATS, LOSS_SCALING, TRAINING_TEXT};
use super::chapter_texts::{
    FIVE_D_TEXT, FP8_TEXT, MODEL_PARALLEL_TEXT, OFFLOAD_TEXT, SERVING_TEXT, SHARDING_TEXT,
};
use super::formats_widget::FormatsWidget;
use super::fp8_widget::Fp8Widget;
use super::loss_scale::LossScaleWidget;
use super::quantize_widget::QuantizeWidget;
use super::scenario::ScenarioWidget;
use super::serve_widget::ServeWidget;
use super::text::{ChapterText, Widget};
use crate::ui::pages::learn::query::Chapter;
use leptos::html::H3;
use leptos::prelude::*;

/// Every chapter, in order (chapter n is `CHAPTERS[n - 1]`).
pub static CHAPTERS: [&ChapterText; Chapter::COUNT as usize] = [
    &BYTES,
    &TRAINING_TEXT,
    &FORMATS,
    &LOSS_SCALING,
    &ACCUMULATION_TEXT,
    &CHECKPOINTING_TEXT,
    &OPTIMIZERS_TEXT,
    &SHARDING_TEXT,
    &OFFLOAD_TEXT,
    &MODEL_PARALLEL_TEXT,
    &FLASH_TEXT,
    &ADAPTERS_TEXT,
    &QUANTIZE_TEXT,
    &SERVING_TEXT,
    &FP8_TEXT,
    &FIVE_D_TEXT,
];

/// The text of chapter `c`.
pub fn text(c: Chapter) -> &'static ChapterText {
    CHAPTERS[c.number() as usize - 1]
}

fn widget(w: &'static Widget) -> AnyView {
    match w {
        Widget::Bytes => view! { <BytesWidget /> }.into_any(),
        Widget::Formats => view! { <FormatsWidget /> }.into_any(),
        Widget::LossScale => view! { <LossScaleWidget /> }.into_any(),
        Widget::Scenario(s) => view! { <ScenarioWidget scenario=s /> }.into_any(),
        Widget::Quantize => view! { <QuantizeWidget /> }.into_any(),
        Widget::Serve => view! { <ServeWidget /> }.into_any(),
        Widget::Fp8 => view! { <Fp8Widget /> }.into_any(),
        Widget::Layout(s) => view! { <ScenarioWidget scenario=s layout=true /> }.into_any(),
    }
}

/// One chapter: heading (focusable, so moving between chapters puts the focus on it), prose,
/// widget and what to try.
#[component]
pub fn ChapterView(
    /// The chapter.
    chapter: Chapter,
    /// The heading, focused when the reader moves to another chapter.
    heading: NodeRef<H3>,
) -> impl IntoView {
    let t = text(chapter);
    view! {
        <article class="learn-chapter" data-testid=format!("learn-chapter-{chapter}")>
            <h3 tabindex="-1" node_ref=heading data-testid="learn-heading">{format!("{chapter}. {}", t.title)}</h3>
            {t.paragraphs.iter().map(|p| view! { <p>{*p}</p> }).collect_view()}
            {widget(&t.widget)}
            <p class="learn-try" data-testid="learn-try"><strong>"Try this: "</strong>{t.try_this}</p>
        </article>
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::pages::learn::scenario::rows;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// Every chapter's comparison sizes every row and times it (the chapters' setups are
    /// typed as option pairs, so a renamed option or value would otherwise show an error).
    #[wasm_bindgen_test]
    fn every_chapter_row_is_a_valid_setup_with_a_step_time() {
        for (n, t) in CHAPTERS.iter().enumerate() {
            let Widget::Scenario(s) = &t.widget else {
                continue;
            };
            let values: Vec<Option<&str>> = match s.scale {
                Some((_, _, values)) => values.iter().map(|v| Some(*v)).collect(),
                None => vec![None],
            };
            for v in values {
                for row in rows(s, v) {
                    let chapter = n + 1;
                    assert!(
                        row.memory.is_ok(),
                        "chapter {chapter}, {}: {:?}",
                        row.label,
                        row.memory
                    );
                    let step = row.step.as_ref().unwrap();
                    assert!(
                        step.timing.is_some(),
                        "chapter {chapter}, {}: {:?}",
                        row.label,
                        step.no_timing
                    );
                }
            }
        }
    }
}
