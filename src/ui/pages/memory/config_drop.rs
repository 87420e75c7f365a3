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

/// Reads `text` into `query` in the module: the new query (the config in force) and the sentence.
async fn read(query: &MemoryQuery, text: &str) -> Result<(MemoryQuery, String), String> {
    let args = [query.to_query_string(false).into(), text.into()];
    let answered = on_demand::call(MODULE, READ_CONFIG, &args).await;
    let (query, said) = answer(answered.map_err(|e| match e {
        OnDemandError::Load(_) => format!("The config reader: {e}"),
        OnDemandError::Failed(why) => why,
    })?)?;
    Ok((parse_page_query::<MemoryQuery>(&query).1, said))
}

/// How many times a config is read again when the setup changed while it was being read.
const READS: usize = 3;

/// The paste / drop area, reading into the page's query. A control changed while the reader
/// loads is kept: the config is then read again into the setup as it is now.
#[component]
pub fn ConfigDrop() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let load = Callback::new(move |text: String| -> ConfigRead {
        Box::pin(async move {
            for _ in 0..READS {
                let before = state.query.get_untracked();
                let (after, said) = read(&before, &text).await?;
                if state.query.with_untracked(|now| *now == before) {
                    state.set(|now| *now = after);
                    return Ok(said);
                }
            }
            Err("The setup kept changing while the config was read; use it again".into())
        })
    });
    let warm = Callback::new(|()| on_demand::warm(MODULE));
    view! { <ConfigPaste load warm /> }
}
