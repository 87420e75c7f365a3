//! Any model from its Hugging Face `config.json` on the Memory page: the config becomes the
//! page's model (its architecture travels in the URL). The Memory page's on-demand module reads it
//! (`pages::memory::files`), which starts loading when a pointer or the focus reaches the area.

use crate::ui::components::config_paste::{ConfigPaste, ConfigRead};
use crate::ui::pages::memory::files::{MODULE, READ_CONFIG};
use crate::ui::pages::memory::query::MemoryQuery;
use crate::ui::pages::memory::state::MemoryState;
use crate::ui::shell::on_demand::{self, OnDemandError};
use crate::ui::shell::query::parse_page_query;
use leptos::prelude::*;

/// The module's answer: the query with the config in force and the sentence to show.
fn answer(value: wasm_bindgen::JsValue) -> Result<(String, String), String> {
    let pair = js_sys::Array::from(&value);
    match (pair.get(0).as_string(), pair.get(1).as_string()) {
        (Some(query), Some(said)) => Ok((query, said)),
        _ => Err("the config reader gave no answer".into()),
    }
}

/// The paste / drop area, reading into the page's query.
#[component]
pub fn ConfigDrop() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let load = Callback::new(move |text: String| -> ConfigRead {
        let query = state.query.with_untracked(|q| q.to_query_string(false));
        Box::pin(async move {
            let args = [query.into(), text.into()];
            let read = on_demand::call(MODULE, READ_CONFIG, &args).await;
            let (query, said) = answer(read.map_err(|e| match e {
                OnDemandError::Load(_) => format!("The config reader: {e}"),
                OnDemandError::Failed(why) => why,
            })?)?;
            let read = parse_page_query::<MemoryQuery>(&query).1;
            state.set(|now| *now = read);
            Ok(said)
        })
    });
    let warm = Callback::new(|()| on_demand::warm(MODULE));
    view! { <ConfigPaste load warm /> }
}
