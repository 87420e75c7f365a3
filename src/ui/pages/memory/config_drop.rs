//! Any model from its Hugging Face `config.json` on the Memory page: the config becomes the
//! page's model (its architecture travels in the URL).

use crate::ui::components::config_paste::ConfigPaste;
use crate::ui::pages::memory::state::MemoryState;
use bitbudget_math::numbers::format_count;
use leptos::prelude::*;

/// The paste / drop area, reading into the page's query.
#[component]
pub fn ConfigDrop() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let load = Callback::new(move |t: String| {
        let mut q = state.query.get_untracked();
        q.job.load_config(&t).map_err(|e| e.to_string())?;
        let params = q.to_setup().arch().map_or(0, |a| a.params());
        let name = q
            .job
            .config
            .as_ref()
            .map_or_else(String::new, |c| c.name.clone());
        state.set(|now| *now = q);
        Ok(format!(
            "Sizing {name}: {} parameters.",
            format_count(params)
        ))
    });
    view! { <ConfigPaste load /> }
}
