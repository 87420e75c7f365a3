//! The application shell: header (navigation, theme menu, Embed button), one page, URL notes; in
//! embed mode the page alone with an "open in bitbudget" link, posting its height to the host page.
//! Each page is its own binary (`src/bin/`), which mounts `app::<ThatPagesQuery>`: generic over the
//! page, the shell links only that page's code.

use crate::ui::browser::{
    current_query_untracked, location_search, open_in_place, post_height, replace_query,
    set_root_style, set_shell_suffix, stored, system_dark,
};
use crate::ui::observers::watch_size;
use crate::ui::shell::embed_button::EmbedButton;
use crate::ui::shell::embed_open_link::EmbedOpenLink;
use crate::ui::shell::notes::Notes;
use crate::ui::shell::palette::{custom_properties, ThemeState, THEME_STORAGE_KEY};
use crate::ui::shell::query::{parse_page_query, Page, ShellQuery};
use crate::ui::shell::theme_toggle::ThemeToggle;
use crate::ui::shell::url::{shell_suffix, without_shell_params, Tab, ThemeChoice};
use leptos::prelude::*;

/// The app showing page `P`, configured from the page URL.
pub fn app<P: Page>() -> impl IntoView {
    let (query, page) = parse_page_query::<P>(&location_search());
    let theme = provide_theme(&query);
    let embed = query.embed;
    let root = height_posting_root(embed, query.widget_id.clone());
    if let Some(target) = page.moved_to() {
        let embed_param = if embed { "&embed=1" } else { "" };
        let url = format!(
            "{target}{embed_param}{}",
            shell_suffix(query.theme, query.widget_id.as_deref())
        );
        return moved(url, query.notes, embed, root).into_any();
    }
    set_shell_suffix(shell_suffix(query.theme, query.widget_id.as_deref()));
    let tab = P::TAB;
    let page = page.view(embed);
    // Keep an explicit theme choice in the URL (for embeds) when the URL named one.
    let url_theme = query.theme.is_some();
    let widget_id = query.widget_id.clone();
    Effect::new(move |first: Option<()>| {
        let choice = theme.choice.get();
        if url_theme && first.is_some() {
            set_shell_suffix(shell_suffix(Some(choice), widget_id.as_deref()));
            replace_query(&without_shell_params(&current_query_untracked()));
        }
    });
    view! {
        <div class="app" class:embed=embed node_ref=root>
            {(!P::EMBED_ONLY).then(|| view! {
                <Show when=move || !embed>
                    <SiteHeader current=tab />
                </Show>
            })}
            <main>
                <Notes notes=query.notes.clone() />
                {page}
            </main>
            {if embed || P::EMBED_ONLY {
                view! { <EmbedOpenLink /> }.into_any()
            } else {
                view! { <footer>"All numbers are computed in your browser by bitbudget-math. Formats: IEEE 754-2019, OCP FP8 1.0, OCP MX 1.0."</footer> }.into_any()
            }}
        </div>
    }
    .into_any()
}

/// Puts the [`ThemeState`] in context (the URL's theme, else the site's stored choice, else the
/// system's) and keeps the root element's custom properties in step with it.
fn provide_theme(query: &ShellQuery) -> ThemeState {
    let from_storage = || {
        stored(THEME_STORAGE_KEY)
            .and_then(|s| s.parse::<ThemeChoice>().ok())
            .unwrap_or_default()
    };
    let initial = match (query.theme, query.embed) {
        (Some(t), _) => t,
        (None, true) => ThemeChoice::Auto,
        (None, false) => from_storage(),
    };
    let state = ThemeState {
        choice: RwSignal::new(initial),
        system_dark: system_dark(),
    };
    provide_context(state);
    Effect::new(move |_| {
        let dark = state.is_dark();
        set_root_style(
            &custom_properties(&state.theme()),
            if dark { "dark" } else { "light" },
        );
    });
    state
}

/// The site's header: name, tagline, page navigation, theme menu and Embed button.
#[component]
fn SiteHeader(
    /// The page shown.
    current: Tab,
) -> impl IntoView {
    view! {
        <header class="top">
            <h1><a href="?">"bitbudget"</a></h1>
            <p class="tagline">"where GPU memory goes, and what number precision costs and buys"</p>
            <nav aria-label="Pages">
                {Tab::ALL.into_iter().map(|t| view! {
                    <a href=format!("?tab={t}") aria-current=(t == current).then_some("page")>{t.label()}</a>
                }).collect_view()}
            </nav>
            <div class="shell-tools">
                <ThemeToggle />
                <EmbedButton tab=current />
            </div>
        </header>
    }
}

/// The app's root element; in an embed its height goes to the host page whenever it changes
/// ([`post_height`], under `widget_id` or "bitbudget").
fn height_posting_root(embed: bool, widget_id: Option<String>) -> NodeRef<leptos::html::Div> {
    let root = NodeRef::<leptos::html::Div>::new();
    if embed {
        let id = widget_id.unwrap_or_else(|| "bitbudget".into());
        root.on_load(move |el| {
            if let Some(w) = watch_size(&el, move |entry| {
                post_height(&id, entry.target().get_bounding_client_rect().height())
            }) {
                w.forever();
            }
        });
    }
    root
}

/// A link that another page answers: that page opens in its place, unless some of the link's values
/// could not be read. Then their notes stay on screen with a link to that page, so that what the
/// link got wrong is not lost on the way (the other page never sees those values); an embed's host
/// page is told their height through `root`.
fn moved(
    url: String,
    notes: Vec<String>,
    embed: bool,
    root: NodeRef<leptos::html::Div>,
) -> impl IntoView {
    if notes.is_empty() {
        open_in_place(&url);
        return view! { <p class="field-note" role="status"><a href=url>"Opening the page that answers this link…"</a></p> }
            .into_any();
    }
    view! {
        <div class="app" class:embed=embed node_ref=root>
            <main>
                <Notes notes />
                <p><a href=url data-testid="moved-link">"Open the page that answers this link"</a>" (the values noted above left at their defaults)"</p>
            </main>
        </div>
    }
    .into_any()
}
