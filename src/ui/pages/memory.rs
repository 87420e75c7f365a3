//! The Memory page: will it fit, where every byte goes, and what sharding buys.

pub mod breakdown_legend;
pub mod chart_numbers;
pub mod config_drop;
pub mod conventions_table;
pub mod downloads;
pub mod fields;
pub mod files;
pub mod lora_targets;
pub mod memory_bar_chart;
pub mod memory_controls;
pub mod model_picker;
pub mod peak_phase;
pub mod published_select;
pub mod query;
pub mod state;
pub mod step_time;
pub mod strategy_order;
pub mod validation_panel;
pub mod verdict;

use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::components::embed_more::EmbedMore;
use crate::ui::components::page_intro::PageIntro;
use crate::ui::components::parallel_layout::ParallelLayout;
use crate::ui::components::sticky_summary::{StickySummary, Tone};
use crate::ui::pages::memory::breakdown_legend::BreakdownLegend;
use crate::ui::pages::memory::chart_numbers::{ScalingNumbers, StrategyNumbers};
use crate::ui::pages::memory::conventions_table::ConventionsTable;
use crate::ui::pages::memory::downloads::Downloads;
use crate::ui::pages::memory::memory_bar_chart::MemoryBarChart;
use crate::ui::pages::memory::memory_controls::MemoryControls;
use crate::ui::pages::memory::peak_phase::PeakPhase;
use crate::ui::pages::memory::query::MemoryQuery;
use crate::ui::pages::memory::state::{MemoryDetails, MemoryState};
use crate::ui::pages::memory::step_time::StepTimePanel;
use crate::ui::pages::memory::strategy_order::StrategyOrderSelect;
use crate::ui::pages::memory::validation_panel::ValidationPanel;
use crate::ui::pages::memory::verdict::Verdict;
use crate::ui::shell::light::whole_or_rest;
use bitbudget_charts::{scaling, strategies};
use bitbudget_math::memory::plan::Strategy;
use bitbudget_math::memory::step::order::strategy_order;
use bitbudget_math::memory::verdict_brief;
use bitbudget_math::numbers::format_bytes;
use leptos::prelude::*;

/// The memory explorer. Writes its state to the URL when `sync_url` is set.
#[component]
pub fn MemoryPage(
    /// Starting state (from the URL).
    initial: MemoryQuery,
    /// Embedded in an iframe: the verdict, the bar and its legend; the rest behind a click.
    #[prop(optional)]
    embed: bool,
    /// Keep the address bar in step with the state.
    #[prop(optional)]
    sync_url: bool,
) -> impl IntoView {
    memory_page::<false>(initial, embed, sync_url)
}

/// The Memory page; with `LIGHT` (the light embed's binary, `embed` set) what an embed keeps
/// behind a click is not built and not linked (the branches on the constant fold away): opening
/// it loads the whole page in this one's place ([`whole_or_rest`]).
pub fn memory_page<const LIGHT: bool>(
    initial: MemoryQuery,
    embed: bool,
    sync_url: bool,
) -> impl IntoView {
    let state = MemoryState::new(initial);
    provide_context(state);
    if !LIGHT {
        provide_context(MemoryDetails::new(state));
        validation_panel::fetch_measurements(state);
    }
    if sync_url {
        Effect::new(move |_| {
            crate::ui::browser::replace_query(&state.query.with(|q| q.to_query_string(embed)))
        });
    }
    let page_only = !LIGHT && !embed;
    view! {
        <section class="page memory" aria-labelledby="memory-title">
            <PageIntro id="memory-title" title=Signal::derive(|| "Will it fit? Where GPU memory goes".to_string()) lede="Pick a model and a way to run it. Each GPU holds the weights, their gradients, the optimizer's states, the activations saved for the backward pass, and some overhead. Point at a part of the bar to see how it is computed." embed />
            // Three areas: on a wide screen the controls sit left of both; on a phone the verdict and
            // the bar come first, then the controls, then the comparisons (assets/style.css).
            <div class="memory-layout">
                <div class="results" id="memory-results" data-testid="memory-results">
                    <Verdict />
                    <PeakPhase />
                    {page_only.then(|| view! { <ValidationPanel /> })}
                    <div class="bar-and-legend">
                        <MemoryBarChart />
                        <div><BreakdownLegend /></div>
                    </div>
                    <EmbedMore embed summary="Step time, GPU layout and downloads" testid="embed-more-results">
                        {whole_or_rest::<LIGHT, _>(|| view! { <StepTimePanel /> <ParallelLayout setup=state.setup /> <Downloads /> })}
                    </EmbedMore>
                </div>
                <div class="controls-area">
                    {page_only.then(|| view! { <VerdictStrip /> })}
                    <EmbedMore embed summary="Change the setup: model, precision, parallelism, batch, GPU" testid="embed-more-controls">
                        {whole_or_rest::<LIGHT, _>(|| view! { <MemoryControls /> })}
                    </EmbedMore>
                </div>
                {page_only.then(|| view! { <div class="comparisons"><Comparisons /></div> })}
            </div>
        </section>
    }
}

/// The verdict in a few words (the per-GPU total without a GPU), kept in view on a phone while the
/// controls below the results are changed.
#[component]
fn VerdictStrip() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let summary = Memo::new(move |_| {
        if state.result.with(Result::is_err) {
            return (
                "This setup is not valid: see the message above".to_string(),
                Tone::Bad,
            );
        }
        let units = state.query.with(|q| q.job.units);
        state.setup.with(|s| {
            state.shown.with(|b| match (b, &s.gpu) {
                (Some(b), Some(g)) => {
                    let tone = if b.total <= g.capacity_bytes {
                        Tone::Good
                    } else {
                        Tone::Bad
                    };
                    (verdict_brief(b.total, g, units), tone)
                }
                (Some(b), None) => (
                    format!("{} per GPU", format_bytes(b.total, units)),
                    Tone::Plain,
                ),
                (None, _) => (String::new(), Tone::Plain),
            })
        })
    });
    view! {
        <StickySummary text=Signal::derive(move || summary.get().0) tone=Signal::derive(move || summary.get().1) results_id="memory-results" testid="verdict-strip" />
    }
}

/// The strategy comparison, the scaling chart and the conventions table.
#[component]
fn Comparisons() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let details = expect_context::<MemoryDetails>();
    let current = move || {
        state.query.with(|q| Strategy {
            zero: q.job.zero,
            offload: q.job.offload,
        })
    };
    let draw_strategies = move |canvas: &web_sys::HtmlCanvasElement| {
        let (bars, setup) = (details.strategies.get(), state.setup.get());
        let order = details
            .step_strategies
            .with(|t| strategy_order(&bars, t, details.order.get()));
        let input = strategies::Input {
            order: &order,
            bars: &bars,
            capacity: setup.gpu.as_ref().map(|g| g.capacity_bytes),
            current: current(),
            units: setup.units,
        };
        warn_on_error(
            "strategies chart",
            draw_chart(canvas, strategies::HEIGHT, &input),
        );
    };
    // What the scaling chart shows besides its lines: changing dp alone redraws nothing there.
    let scaling_frame = Memo::new(move |_| {
        state.setup.with(|s| {
            let capacity = s.gpu.as_ref().map(|g| (g.capacity_bytes, g.name));
            (capacity, s.units)
        })
    });
    let draw_scaling = move |canvas: &web_sys::HtmlCanvasElement| {
        let ((capacity, units), lines) = (scaling_frame.get(), details.sweep.get());
        let input = scaling::Input {
            lines: &lines,
            capacity,
            units,
        };
        warn_on_error("scaling chart", draw_chart(canvas, scaling::HEIGHT, &input));
    };
    view! {
        <h3>"Every strategy, same setup"</h3>
        <p class="lede">"ZeRO-1 shards the optimizer states across the data-parallel GPUs, ZeRO-2 also the gradients, ZeRO-3 (FSDP FULL_SHARD) also the weights. Offload moves optimizer states (and weights) to CPU memory. Activations are never sharded by ZeRO: only tensor/sequence parallelism and recomputation shrink them."</p>
        <StrategyOrderSelect />
        <CanvasChart label=Signal::derive(|| "Stacked bars of per-GPU memory for DDP, ZeRO-1, ZeRO-2, ZeRO-3 and offload variants".to_string()) height=strategies::HEIGHT testid="strategies-chart" draw=draw_strategies />
        <StrategyNumbers />
        <p class="chart-key" data-testid="strategies-key">"Bar labels: DDP = every GPU holds everything; Z1, Z2, Z3 = ZeRO stage 1, 2, 3 (optimizer states, + gradients, + weights split across the data-parallel GPUs); +off = optimizer states offloaded to CPU memory; +off all = weights too."</p>
        <h3>"More GPUs"</h3>
        <p class="lede">"Per-GPU memory as the data-parallel degree grows from 1 to 1024 (log scales). DDP stays flat: every GPU holds everything. ZeRO-3 falls as 1/N until activations and overhead dominate. Triangles on the GPU's line mark where each strategy first fits."</p>
        <CanvasChart label=Signal::derive(|| "Per-GPU memory against number of GPUs for each strategy".to_string()) height=scaling::HEIGHT testid="scaling-chart" draw=draw_scaling />
        <ScalingNumbers />
        <h3>"How others count it"</h3>
        <p class="lede">"Published calculators disagree on bytes per parameter. Here is the same setup's model states (weights, gradients, optimizer) under each convention."</p>
        <ConventionsTable />
    }
}

impl crate::ui::shell::query::Page for MemoryQuery {
    fn view(self, embed: bool) -> AnyView {
        view! { <MemoryPage initial=self embed sync_url=true /> }.into_any()
    }
}

impl crate::ui::shell::light::LightPage for MemoryQuery {
    fn light_view(self) -> AnyView {
        memory_page::<true>(self, true, true).into_any()
    }
}
