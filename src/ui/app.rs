//! The application shell: header, navigation, the current page, and URL notes.

use crate::ui::browser::{location_search, window_width};
use crate::ui::components::notes::Notes;
use crate::ui::pages::bits::BitsPage;
use crate::ui::pages::memory::MemoryPage;
use crate::ui::pages::quant::QuantPage;
use crate::ui::palette::stylesheet;
use crate::ui::url_state::{parse_query, Tab};
use leptos::prelude::*;

/// The whole app, configured from the page URL.
#[component]
pub fn App() -> impl IntoView {
    let query = parse_query(&location_search());
    provide_context(window_width());
    let embed = query.embed;
    let page = match query.tab {
        Tab::Bits => {
            view! { <BitsPage initial=query.bits.clone() embed sync_url=true /> }.into_any()
        }
        Tab::Memory => {
            view! { <MemoryPage initial=query.memory.clone() embed sync_url=true /> }.into_any()
        }
        Tab::Quant => {
            view! { <QuantPage initial=query.quant.clone() embed sync_url=true /> }.into_any()
        }
    };
    view! {
        <style>{stylesheet()}</style>
        <div class="app" class:embed=embed>
            <Show when=move || !embed>
                <header class="top">
                    <h1><a href="?">"bitbudget"</a></h1>
                    <p class="tagline">"where GPU memory goes, and what number precision costs and buys"</p>
                    <nav aria-label="Pages">
                        {Tab::ALL.into_iter().map(|t| view! {
                            <a href=format!("?tab={t}") aria-current=(t == query.tab).then_some("page")>{t.label()}</a>
                        }).collect_view()}
                    </nav>
                </header>
            </Show>
            <main>
                <Notes notes=query.notes.clone() />
                {page}
            </main>
            <Show when=move || !embed>
                <footer>"All numbers are computed in your browser by bitbudget-math. Formats: IEEE 754-2019, OCP FP8 1.0, OCP MX 1.0."</footer>
            </Show>
        </div>
    }
}
