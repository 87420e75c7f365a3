//! The widget most chapters share: the same job under a few choices (a recompute mode, a ZeRO
//! stage, an optimizer ...), each sized by the math crate's memory estimate and step-time model,
//! with the chosen one drawn as the Memory page's bar and linked to the Memory page (a serving row
//! to the Serve page).

use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::components::parallel_layout::ParallelLayout;
use crate::ui::components::serve_link::serve_query;
use crate::ui::pages::memory::query::MemoryQuery;
use bitbudget_charts::documents::{self, MemoryChart};
use bitbudget_charts::memory_bar;
use bitbudget_math::memory::step::text::format_seconds;
use bitbudget_math::memory::step::{step_time, StepTime};
use bitbudget_math::memory::{estimate, Breakdown, Job, MemoryError, Mode};
use bitbudget_math::numbers::format_bytes;
use bitbudget_math::serve::from_memory::serving_job;
use leptos::prelude::*;

/// One choice: a label and the options it sets on top of the scenario's base.
pub struct Choice {
    /// What the row is called.
    pub label: &'static str,
    /// `(key, value)` options of the memory option table.
    pub pairs: &'static [(&'static str, &'static str)],
}

impl Choice {
    /// A row called `label`, with its `(key, value)` options.
    pub const fn new(label: &'static str, pairs: &'static [(&'static str, &'static str)]) -> Self {
        Choice { label, pairs }
    }
}

/// A chapter's comparison.
pub struct Scenario {
    /// Options every row shares.
    pub base: &'static [(&'static str, &'static str)],
    /// The rows.
    pub choices: &'static [Choice],
    /// The row shown first.
    pub start: usize,
    /// A knob that applies to every row: label, option key and the values offered.
    pub scale: Option<(&'static str, &'static str, &'static [&'static str])>,
    /// The chapter's own column: header and how to compute it from a row.
    pub extra: (&'static str, fn(&Row) -> String),
}

/// One row, computed.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The choice's label.
    pub label: &'static str,
    /// The job it describes.
    pub job: Job,
    /// Its memory per GPU, or why it cannot be sized.
    pub memory: Result<Breakdown, MemoryError>,
    /// Its step time, or why there is none.
    pub step: Result<StepTime, MemoryError>,
}

impl Row {
    /// Seconds per step in words, or "—".
    pub fn seconds(&self) -> String {
        self.step
            .as_ref()
            .ok()
            .and_then(StepTime::seconds)
            .map_or("—".into(), format_seconds)
    }

    /// Memory per GPU in words, or the reason it cannot be sized.
    pub fn total(&self) -> String {
        match &self.memory {
            Ok(b) => format_bytes(b.total, self.job.units),
            Err(e) => e.to_string(),
        }
    }
}

/// Every row of `s` with the scale knob (if any) at `scale_value`.
pub fn rows(s: &Scenario, scale_value: Option<&str>) -> Vec<Row> {
    s.choices
        .iter()
        .map(|c| {
            let scale = s.scale.zip(scale_value).map(|((_, k, _), v)| (k, v));
            let pairs = s.base.iter().chain(c.pairs).copied().chain(scale);
            let job = Job::from_pairs(pairs);
            let (job, memory, step) = match job {
                Ok(job) => {
                    let setup = job.to_setup();
                    let memory = estimate(&setup);
                    let step = step_time(&setup, &job.step_params());
                    (job, memory, step)
                }
                Err(e) => (Job::default(), Err(e.clone()), Err(e)),
            };
            Row {
                label: c.label,
                job,
                memory,
                step,
            }
        })
        .collect()
}

/// The link under a training row.
const MEMORY_LINK: &str = "Open this setup in the Memory page";

/// The link under a serving row.
const SERVE_LINK: &str = "Serve a model of this size on the Serve page";

/// The comparison: a choice (and the scale knob), the chosen row's memory bar, every row's
/// numbers, and a link to the page that sizes the chosen row's setup.
#[component]
pub fn ScenarioWidget(
    /// The comparison.
    scenario: &'static Scenario,
    /// Also draw the chosen row's GPUs by parallel group.
    #[prop(optional)]
    layout: bool,
) -> impl IntoView {
    let chosen = RwSignal::new(scenario.start);
    let scale = RwSignal::new(scenario.scale.map(|(_, _, values)| values[0]));
    let rows = Memo::new(move |_| rows(scenario, scale.get()));
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        rows.with(|rows| {
            let Some(row) = rows.get(chosen.get()) else {
                return;
            };
            let Ok(b) = &row.memory else { return };
            let gpu = row.job.to_setup().gpu;
            let input = memory_bar::Input {
                breakdown: b,
                capacity: gpu.as_ref().map(|g| (g.capacity_bytes, g.name)),
                units: row.job.units,
                highlight: None,
            };
            warn_on_error(
                "learn memory bar",
                draw_chart(canvas, memory_bar::HEIGHT, &input).map(|_| ()),
            );
        })
    };
    // Serving rows open the Serve page (a model of the row's size), the others the Memory page.
    let link = move || {
        rows.with(|r| {
            r.get(chosen.get()).map(|row| match row.job.mode {
                Mode::Inference => (serve_query(&serving_job(&row.job)), SERVE_LINK),
                _ => (
                    MemoryQuery::from(row.job.clone()).to_query_string(false),
                    MEMORY_LINK,
                ),
            })
        })
    };
    let (href, link_text) = (move || link().map(|l| l.0), move || link().map(|l| l.1));
    // The model and setup behind the chosen row's numbers, as the CLI's chart caption says them.
    let named = move || {
        rows.with(|r| {
            r.get(chosen.get()).map(|row| {
                let frame = documents::memory_frame(&row.job.to_setup(), MemoryChart::Bar);
                format!("{}. {}", frame.title, frame.caption)
            })
        })
    };
    view! {
        <div class="learn-widget" data-testid="learn-widget">
            <ScaleSelect scenario scale />
            <ScenarioTable scenario rows chosen />
            <p class="chart-key" data-testid="learn-setup">{named}</p>
            <CanvasChart label=Signal::derive(|| "Memory per GPU of the chosen row, by part".to_string()) height=memory_bar::HEIGHT testid="learn-bar" draw />
            {layout.then(|| {
                let setup = Signal::derive(move || {
                    rows.with(|r| r.get(chosen.get()).map(|row| row.job.to_setup()).unwrap_or_else(|| Job::default().to_setup()))
                });
                view! { <ParallelLayout setup /> }
            })}
            <p><a href=href data-testid="learn-open-setup">{link_text}</a></p>
        </div>
    }
}

/// The scale knob, when the scenario has one.
#[component]
fn ScaleSelect(
    /// The comparison.
    scenario: &'static Scenario,
    /// The knob's value.
    scale: RwSignal<Option<&'static str>>,
) -> impl IntoView {
    scenario.scale.map(|(label, key, values)| {
        view! {
            <label class="learn-knob">{label}" "
                <select data-testid=format!("learn-scale-{key}") on:change=move |ev| {
                    let v = event_target_value(&ev);
                    scale.set(values.iter().copied().find(|x| *x == v));
                }>
                    {values.iter().map(|v| view! { <option value=*v>{*v}</option> }).collect_view()}
                </select>
            </label>
        }
    })
}

/// Every row's numbers; choosing a row draws it.
#[component]
fn ScenarioTable(
    /// The comparison.
    scenario: &'static Scenario,
    /// The rows.
    rows: Memo<Vec<Row>>,
    /// The row drawn.
    chosen: RwSignal<usize>,
) -> impl IntoView {
    let (extra_header, extra) = scenario.extra;
    let body = move || {
        rows.with(|rows| {
            rows.iter()
                .enumerate()
                .map(|(i, row)| {
                    view! {
                        <tr class:chosen=move || chosen.get() == i>
                            <th scope="row">
                                <label><input type="radio" name="learn-row" data-testid=format!("learn-choose-{i}") prop:checked=move || chosen.get() == i on:change=move |_| chosen.set(i) />" "{row.label}</label>
                            </th>
                            <td class="num" data-testid=format!("learn-row-{i}-memory")>{row.total()}</td>
                            <td class="num" data-testid=format!("learn-row-{i}-time")>{row.seconds()}</td>
                            <td class="num" data-testid=format!("learn-row-{i}-extra")>{extra(row)}</td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    view! {
        <div class="table-scroll" tabindex="0" role="region" aria-label="Table (scrolls sideways on narrow screens)">
            <table class="learn-table">
                <thead><tr><th scope="col">"setup"</th><th scope="col">"memory per GPU"</th><th scope="col">"time per step"</th><th scope="col">{extra_header}</th></tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}
