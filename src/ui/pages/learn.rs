//! The Learn page: the story of where GPU memory goes and what each saving costs, in chapters, each
//! with a live widget computed by the math crate (`?tab=learn&step=N`).
//!
//! Keyboard: links and buttons in reading order; ←/→ or PageUp/PageDown move between chapters
//! anywhere on the page (outside form fields), and the focus goes to the new chapter's heading.

mod bytes_widget;
mod chapter_texts;
pub mod chapters;
pub mod delayed_widget;
mod formats_widget;
pub mod fp8_widget;
mod loss_scale;
mod nav;
mod qat_widget;
mod quantize_widget;
pub mod query;
pub mod scenario;
mod serve_widget;
pub mod text;

use crate::ui::pages::learn::query::{learn_query_string, Chapter};
use chapters::ChapterView;
use leptos::html::H3;
use leptos::prelude::*;
use nav::{ChapterNav, PrevNext};
use wasm_bindgen::JsCast;

pub use bytes_widget::weight_bytes;
pub use chapter_texts::FP8_RECIPES;
pub use loss_scale::{dynamic_log, fp16_window, load_gradients, provenance, GRADIENT_URL};
pub use quantize_widget::worked;

/// The chapter a key moves to from `c`, if the key moves at all.
fn chapter_for_key(key: &str, c: Chapter) -> Option<Chapter> {
    match key {
        "ArrowRight" | "PageDown" => c.next(),
        "ArrowLeft" | "PageUp" => c.prev(),
        _ => None,
    }
}

/// Whether a key event comes from a form field (where the arrows belong to the field).
fn in_field(ev: &web_sys::KeyboardEvent) -> bool {
    ev.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|e| matches!(e.tag_name().as_str(), "INPUT" | "SELECT" | "TEXTAREA"))
}

/// The Learn page. Writes the chapter to the URL when `sync_url` is set.
#[component]
pub fn LearnPage(
    /// The chapter to open (from the URL).
    initial: Chapter,
    /// Embedded in an iframe: the chapter alone.
    #[prop(optional)]
    embed: bool,
    /// Keep the address bar in step with the chapter.
    #[prop(optional)]
    sync_url: bool,
) -> impl IntoView {
    let current = RwSignal::new(initial);
    let heading = NodeRef::<H3>::new();
    let moved = RwSignal::new(false);
    let go = Callback::new(move |c: Chapter| {
        moved.set(true);
        current.set(c);
    });
    if sync_url {
        Effect::new(move |_| {
            crate::ui::browser::replace_query(&learn_query_string(current.get(), embed))
        });
    }
    // After a move, the focus goes to the new chapter's heading (not on first load).
    Effect::new(move |_| {
        current.track();
        if moved.get_untracked() {
            if let Some(h) = heading.get() {
                let _ = h.focus();
            }
        }
    });
    // On the window, so that the keys work on arrival and after a click on the text, not only
    // once the focus is inside the page; removed when the page goes.
    let keys = window_event_listener(leptos::ev::keydown, move |ev: web_sys::KeyboardEvent| {
        if ev.alt_key() || ev.ctrl_key() || ev.meta_key() || ev.default_prevented() || in_field(&ev)
        {
            return;
        }
        if let Some(c) = chapter_for_key(&ev.key(), current.get_untracked()) {
            ev.prevent_default();
            go.run(c);
        }
    });
    on_cleanup(move || keys.remove());
    let lede = format!(
        "{} short chapters, each with a live widget computed by the same code as the rest of bitbudget. Use ← and → (or Page Up and Page Down) anywhere on the page to move between chapters.",
        Chapter::COUNT
    );
    view! {
        <section class="page learn" aria-labelledby="learn-title" data-testid="learn-page">
            <Show when=move || !embed>
                <h2 id="learn-title">"Learn: where the memory goes, and what each saving costs"</h2>
                <p class="lede">{lede.clone()}</p>
            </Show>
            <div class="learn-layout">
                <Show when=move || !embed>
                    <ChapterNav current go />
                </Show>
                <div class="learn-main">
                    {move || view! { <ChapterView chapter=current.get() heading /> }}
                    <Show when=move || !embed>
                        <PrevNext current go />
                    </Show>
                </div>
            </div>
        </section>
    }
}

impl crate::ui::shell::query::Page for crate::ui::pages::learn::query::Chapter {
    fn view(self, embed: bool) -> AnyView {
        view! { <LearnPage initial=self embed sync_url=true /> }.into_any()
    }
}
