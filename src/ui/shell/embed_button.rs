//! The Embed button: writes the iframe snippet for the current state and copies it, with the
//! snippet shown in a text box either way (the visible fallback when the clipboard is refused).

use crate::ui::browser::{copy_text, current_query, page_base};
use crate::ui::shell::palette::ThemeState;
use crate::ui::shell::url::{embed_snippet, widget_query, Tab};
use leptos::prelude::*;

/// What happened to the last snippet.
#[derive(Clone, PartialEq)]
enum Copied {
    Not,
    Yes,
    Refused(String),
}

/// The button and, once pressed, the snippet with a sentence saying whether it was copied.
#[component]
pub fn EmbedButton(
    /// The page shown, for the iframe's title and starting height.
    tab: Tab,
) -> impl IntoView {
    let theme = expect_context::<ThemeState>();
    let snippet = RwSignal::new(None::<String>);
    let copied = RwSignal::new(Copied::Not);
    let on_click = move |_| {
        let base = page_base();
        let id = format!("bitbudget-{}", tab.name());
        let src = format!(
            "{base}{}",
            widget_query(&current_query(), theme.choice.get_untracked(), &id)
        );
        let text = embed_snippet(&src, &format!("{base}embed.js"), tab);
        snippet.set(Some(text.clone()));
        copied.set(Copied::Not);
        leptos::task::spawn_local(async move {
            copied.set(match copy_text(&text).await {
                Ok(()) => Copied::Yes,
                Err(e) => Copied::Refused(e),
            });
        });
    };
    view! {
        <button class="embed-button" data-testid="embed-button" aria-expanded=move || snippet.get().is_some().to_string() on:click=on_click>"Embed"</button>
        {move || snippet.get().map(|text| view! { <EmbedSnippet text copied=copied.get() on_close=move || snippet.set(None) /> })}
    }
}

/// The snippet in a read-only text box, with the copy result.
#[component]
fn EmbedSnippet(
    /// The HTML to paste.
    text: String,
    /// Whether it reached the clipboard.
    copied: Copied,
    /// Hides the panel.
    on_close: impl Fn() + 'static,
) -> impl IntoView {
    let message = match copied {
        Copied::Not => "Copying…".to_string(),
        Copied::Yes => "Copied to the clipboard: paste it into your post's HTML.".to_string(),
        Copied::Refused(why) => {
            format!("Not copied ({why}): select the text below and copy it (Ctrl+C or ⌘C).")
        }
    };
    view! {
        <div class="embed-panel" role="region" aria-label="Embed snippet">
            <p role="status" data-testid="embed-status">{message}</p>
            <textarea readonly rows="4" aria-label="iframe snippet" data-testid="embed-snippet" prop:value=text
                on:focus=|ev| { event_target::<web_sys::HtmlTextAreaElement>(&ev).select() }></textarea>
            <button class="link" on:click=move |_| on_close()>"Close"</button>
        </div>
    }
}
