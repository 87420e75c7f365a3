//! The Serve page: a model served by vLLM, SGLang, TensorRT-LLM or llama.cpp: the per-GPU budget
//! in the engine's own terms, the KV cache and the concurrency it holds, and tokens per second.

pub mod charts;
pub mod controls;
pub mod figures;
pub mod gguf_file;
pub mod gguf_source;
pub mod placement;
pub mod query;

use crate::ui::components::embed_more::EmbedMore;
use crate::ui::components::page_intro::PageIntro;
use crate::ui::pages::serve::charts::ServeCharts;
use crate::ui::pages::serve::controls::ServeControls;
use crate::ui::pages::serve::figures::{Checked, Figures};
use crate::ui::pages::serve::gguf_source::ServedFile;
use crate::ui::pages::serve::placement::TensorPlacement;
use crate::ui::pages::serve::query::ServeQuery;
use crate::ui::shell::light::whole_or_rest;
use bitbudget_math::serve::{advice, serve, verdict, ServeReport, ServeSetup};
use leptos::prelude::*;

/// The Serve page's state: the URL query, and the answer for it (or why there is none) next to the
/// last good answer, which the figures and charts keep showing while a knob is wrong.
#[derive(Clone, Copy)]
pub struct ServeState {
    /// What the page shows.
    pub query: RwSignal<ServeQuery>,
    /// A GGUF file being served (not in the link): its architecture and tensors stand in for the
    /// model while it is set.
    pub file: RwSignal<Option<ServedFile>>,
    /// The current setup's answer, or the message saying why it has none.
    pub answer: Memo<Result<(ServeSetup, ServeReport), String>>,
    /// The last setup that had an answer.
    pub good: Memo<Option<(ServeSetup, ServeReport)>>,
}

impl ServeState {
    fn new(initial: ServeQuery) -> Self {
        let query = RwSignal::new(initial);
        let file = RwSignal::new(None::<ServedFile>);
        let answer = Memo::new(move |_| {
            let mut setup = query.with(ServeQuery::setup)?;
            file.with(|f| f.as_ref().map(|f| f.apply(&mut setup)));
            let report = serve(&setup).map_err(|e| e.to_string())?;
            Ok((setup, report))
        });
        let good = Memo::new(
            move |last: Option<&Option<(ServeSetup, ServeReport)>>| match answer.get() {
                Ok(a) => Some(a),
                Err(_) => last.cloned().flatten(),
            },
        );
        Self {
            query,
            file,
            answer,
            good,
        }
    }

    /// Changes the query in place.
    pub fn set(&self, f: impl FnOnce(&mut ServeQuery)) {
        self.query.update(f);
    }
}

/// The serving explorer. Writes its state to the URL when `sync_url` is set.
#[component]
pub fn ServePage(
    /// Starting state (from the URL).
    initial: ServeQuery,
    /// Embedded in an iframe: the verdict and the charts; the rest behind a click.
    #[prop(optional)]
    embed: bool,
    /// Keep the address bar in step with the state.
    #[prop(optional)]
    sync_url: bool,
) -> impl IntoView {
    serve_page::<false>(initial, embed, sync_url)
}

/// The Serve page; with `LIGHT` (the light embed's binary, `embed` set) what an embed keeps
/// behind a click is not built and not linked (the branches on the constant fold away): opening
/// it loads the whole page in this one's place ([`whole_or_rest`]).
pub fn serve_page<const LIGHT: bool>(
    initial: ServeQuery,
    embed: bool,
    sync_url: bool,
) -> impl IntoView {
    let state = ServeState::new(initial);
    provide_context(state);
    if sync_url {
        Effect::new(move |_| {
            crate::ui::browser::replace_query(&state.query.with(|q| q.to_query_string(embed)))
        });
    }
    let page_only = !LIGHT && !embed;
    view! {
        <section class="page serve" aria-labelledby="serve-title">
            <PageIntro id="serve-title" title=Signal::derive(|| "How many users? Serving as the engines do".to_string()) lede="Pick an engine, a model and GPUs. Each engine takes its share of the GPU, loads the weights, runs a profiling batch, and gives what remains to the KV cache: that cache decides how many requests run at once. Decode reads every weight and every request's cache each step, so memory bandwidth sets the tokens per second." embed />
            <div class="memory-layout serve-layout">
                <div class="results" data-testid="serve-results">
                    <ServeVerdict />
                    {page_only.then(|| view! { <Checked /> })}
                    <EmbedMore embed summary="The engine's accounting, line by line" testid="embed-more-results">
                        {whole_or_rest::<LIGHT, _>(|| view! { <Figures /> <TensorPlacement /> })}
                    </EmbedMore>
                </div>
                <EmbedMore embed summary="Change the engine, model, GPUs or requests" testid="embed-more-controls" class="controls-area">
                    {whole_or_rest::<LIGHT, _>(|| view! { <ServeControls /> })}
                </EmbedMore>
                <div class="comparisons">
                    <ServeCharts embed />
                </div>
            </div>
        </section>
    }
}

/// The verdict, the message for a refused knob, the notes and the advice.
#[component]
fn ServeVerdict() -> impl IntoView {
    let state = expect_context::<ServeState>();
    let line = move || match state.answer.get() {
        Ok((setup, r)) => (verdict(&setup, &r), r.fits),
        Err(e) => (format!("Cannot answer: {e}"), false),
    };
    let notes = move || state.answer.get().map(|(_, r)| r.notes).unwrap_or_default();
    let changes = move || {
        state
            .answer
            .get()
            .map(|(setup, r)| advice(&setup, &r))
            .unwrap_or_default()
    };
    view! {
        <p class="verdict" class:fits=move || line().1 data-testid="serve-verdict" role="status">{move || line().0}</p>
        <ul class="suggestions" data-testid="serve-advice">
            {move || changes().into_iter().map(|a| view! { <li>"Would change it: "{a}</li> }).collect_view()}
        </ul>
        <ul class="serve-notes" data-testid="serve-notes">
            {move || notes().into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
        </ul>
    }
}

impl crate::ui::shell::query::Page for ServeQuery {
    fn view(self, embed: bool) -> AnyView {
        view! { <ServePage initial=self embed sync_url=true /> }.into_any()
    }
}

impl crate::ui::shell::light::LightPage for ServeQuery {
    fn light_view(self) -> AnyView {
        serve_page::<true>(self, true, true).into_any()
    }
}
