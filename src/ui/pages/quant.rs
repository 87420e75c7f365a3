//! The Quantize lab: real quantization of real tensors, with errors you can see.

pub mod columns_field;
pub mod device_bench;
pub mod fp4_options_field;
pub mod gpu_lab;
pub mod int8_demo;
pub mod kquant_block;
pub mod lab_upload;
pub mod lab_workers;
pub mod left_out_note;
pub mod non_finite_note;
pub mod pacing;
pub mod quant_controls;
pub mod quant_details;
pub mod quant_table;
pub mod query;
pub mod ran_on;
pub mod scheme_picker;
pub mod state;

use crate::ui::components::embed_more::EmbedMore;
use crate::ui::components::page_intro::PageIntro;
use crate::ui::components::sticky_summary::{StickySummary, Tone};
use crate::ui::pages::quant::device_bench::DeviceBench;
use crate::ui::pages::quant::int8_demo::Int8Demo;
use crate::ui::pages::quant::left_out_note::LeftOutNote;
use crate::ui::pages::quant::non_finite_note::NonFiniteNote;
use crate::ui::pages::quant::quant_controls::QuantControls;
use crate::ui::pages::quant::quant_details::QuantDetails;
use crate::ui::pages::quant::quant_table::{model_bytes, sqnr_text, QuantTable};
use crate::ui::pages::quant::query::QuantQuery;
use crate::ui::pages::quant::state::{compute, QuantState};
use bitbudget_math::quant::scheme::Scheme;
use leptos::prelude::*;
use std::sync::Arc;

async fn fetch_sample() -> Result<Vec<u8>, String> {
    crate::ui::browser::fetch_bytes(query::SAMPLE_URL)
        .await
        .map_err(|why| {
            format!("the sample tensor could not be loaded ({why}): pick a synthetic tensor")
        })
}

/// The Quantize lab.
#[component]
pub fn QuantPage(
    /// Starting state (from the URL).
    initial: QuantQuery,
    /// Embedded in an iframe: controls, table and charts only.
    #[prop(optional)]
    embed: bool,
    /// Keep the address bar in step with the state.
    #[prop(optional)]
    sync_url: bool,
) -> impl IntoView {
    let state = QuantState::new(initial);
    provide_context(state);
    leptos::task::spawn_local(async move {
        let loaded = fetch_sample().await.map(Arc::new);
        state.sample.set(Some(loaded));
    });
    // Everything that changes the computation; the scheme shown in detail does not (it is among
    // `schemes`, the ones computed), so picking another row only redraws.
    let inputs = Memo::new(move |_| {
        state.query.with(|q| QuantQuery {
            scheme: Scheme::F16,
            schemes: q.compared(),
            ..q.clone()
        })
    });
    Effect::new(move |_| {
        let query = inputs.get();
        let tensor = state.tensor();
        let generation = state.generation.get_value() + 1;
        state.generation.set_value(generation);
        if let Ok(t) = tensor {
            state.progress.set(0.0);
            leptos::task::spawn_local(compute(state, t, query, generation));
        }
    });
    if sync_url {
        Effect::new(move |_| {
            crate::ui::browser::replace_query(&state.query.with(|q| q.to_query_string(embed)))
        });
    }
    let status = move || match state.tensor() {
        Ok(t) => format!(
            "{} · {} · {} values",
            t.name,
            crate::ui::pages::quant::query::shape_text(&t.shape),
            bitbudget_math::numbers::grouped(t.values.len())
        ),
        Err(e) => e,
    };
    view! {
        <section class="page quant" aria-labelledby="quant-title">
            <PageIntro id="quant-title" title=Signal::derive(|| "Quantize a real tensor".to_string()) lede="Every scheme below really runs in your browser on the chosen tensor: llama.cpp's GGML blocks, K-quants (Q2_K … Q6_K), IQ4_NL and NVFP4 (byte for byte), MXFP4 and the MX FP6/FP8 formats, NF4, absmax and zero-point integers, and scaled FP8. Compare the error each leaves against the bits it stores per weight." embed />
            <div class="memory-layout">
                <div class="controls-area">
                    <Show when=move || !embed>
                        <SchemeStrip />
                    </Show>
                    <EmbedMore embed summary="Change the tensor, schemes or block size" testid="embed-more-controls">
                        <QuantControls />
                    </EmbedMore>
                </div>
                <div class="results" id="quant-results">
                    <p class="tensor-status" data-testid="tensor-status">{status}</p>
                    <Show when=move || { state.progress.get() < 1.0 }>
                        <progress max="1" prop:value=move || state.progress.get() data-testid="quant-progress" aria-label="Quantizing"></progress>
                    </Show>
                    <NonFiniteNote />
                    <LeftOutNote />
                    <QuantTable />
                    <EmbedMore embed summary="Charts and first values of the scheme shown" testid="embed-more-results">
                        <QuantDetails />
                    </EmbedMore>
                    <Show when=move || !embed><Int8Demo /><DeviceBench /></Show>
                </div>
            </div>
        </section>
    }
}

/// The scheme shown in detail and its numbers on this tensor in one line, kept in view on a phone
/// while the controls below the results are changed.
#[component]
fn SchemeStrip() -> impl IntoView {
    let state = expect_context::<QuantState>();
    let text = Signal::derive(move || {
        let shown = state.shown.get();
        let params = state.model_params.get();
        state.results.with(|r| {
            let row = r
                .as_ref()
                .and_then(|r| r.rows.iter().find(|row| row.scheme == shown));
            match row {
                Some(row) => format!(
                    "{}: {:.3} bits/weight · SQNR {} dB · model {}",
                    shown.name(),
                    row.bits_per_weight,
                    sqnr_text(row.metrics.sqnr_db),
                    bitbudget_math::numbers::format_bytes(
                        model_bytes(row.bits_per_weight, params),
                        bitbudget_math::numbers::Units::Gb
                    )
                ),
                None => format!("{}: quantizing…", shown.name()),
            }
        })
    });
    view! { <StickySummary text tone=Signal::derive(|| Tone::Plain) results_id="quant-results" testid="scheme-strip" /> }
}

impl crate::ui::shell::query::Page for crate::ui::pages::quant::query::QuantQuery {
    fn view(self, embed: bool) -> AnyView {
        view! { <QuantPage initial=self embed sync_url=true /> }.into_any()
    }
}
