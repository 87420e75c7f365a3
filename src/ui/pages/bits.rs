//! The Bits page: one value in every format, side by side.

pub mod facts_table;
pub mod format_card;
pub mod query;
pub mod scaled_view;
pub mod state;
pub mod value_input;

use crate::ui::browser::download_text;
use crate::ui::components::canvas_chart::{draw_chart, warn_on_error, CanvasChart};
use crate::ui::components::embed_more::EmbedMore;
use crate::ui::components::page_intro::PageIntro;
use crate::ui::pages::bits::facts_table::FactsTable;
use crate::ui::pages::bits::format_card::FormatCard;
use crate::ui::pages::bits::query::{bits_query_string, BitsQuery};
use crate::ui::pages::bits::scaled_view::ScaledView;
use crate::ui::pages::bits::state::BitsState;
use crate::ui::pages::bits::value_input::ValueInput;
use bitbudget_charts::{documents, number_line};
use bitbudget_math::format::FormatId;
use leptos::prelude::*;

/// The number-format explorer. Writes its state to the URL when `sync_url` is set.
#[component]
pub fn BitsPage(
    /// Starting state (from the URL).
    initial: BitsQuery,
    /// Embedded in an iframe: the widget alone, without the prose and facts table.
    #[prop(optional)]
    embed: bool,
    /// Keep the address bar in step with the state.
    #[prop(optional)]
    sync_url: bool,
) -> impl IntoView {
    let state = BitsState::new(&initial);
    provide_context(state);
    if sync_url {
        Effect::new(move |_| {
            if state.parsed.get().is_ok() {
                crate::ui::browser::replace_query(&bits_query_string(&state.query(), embed));
            }
        });
    }
    view! {
        <section class="page bits" aria-labelledby="bits-title">
            <PageIntro id="bits-title" title=Signal::derive(move || format!("What does a number look like in {}?", state.fmt.get().label())) lede="Type a value and see how each format stores it: which bits are set, the value actually stored, and how far it is from what you typed. Click any bit to flip it. Notice how BF16 keeps FP32's range but only about 2–3 decimal digits, while FP16 has more digits and overflows past 65504." embed />
            <ValueInput />
            <NumberLine />
            {if embed { view! { <EmbeddedCards /> }.into_any() } else { view! {
                <div class="cards">
                    {FormatId::ALL.into_iter().map(|id| view! { <FormatCard id /> }).collect_view()}
                </div>
            }.into_any() }}
            <Show when=move || !embed>
                <ScaledView />
                <h3>"Facts"</h3>
                <p class="lede">"Epsilon is the gap between 1 and the next value; a format's decimal digits are its mantissa bits plus the implicit one, times log10(2). The last column is what a billion parameters cost in that format (GB = 10^9 bytes)."</p>
                <FactsTable />
            </Show>
        </section>
    }
}

/// An embed's cards: the format on the number line, with the others one click away (the widget
/// opens at its point, about one screen), built when first opened.
#[component]
fn EmbeddedCards() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let others = move || {
        FormatId::ALL
            .into_iter()
            .filter(move |id| *id != state.fmt.get())
    };
    let summary = format!(
        "The same value in the other {} formats",
        FormatId::ALL.len() - 1
    );
    view! {
        <div class="cards">{move || view! { <FormatCard id=state.fmt.get() /> }}</div>
        <EmbedMore embed=true summary testid="embed-more-cards">
            <div class="cards">{move || others().map(|id| view! { <FormatCard id /> }).collect_view()}</div>
        </EmbedMore>
    }
}

/// The selected format's number line.
#[component]
fn NumberLine() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let label = Signal::derive(move || {
        format!("Number line of {}: representable values near {} and how their spacing grows with magnitude", state.fmt.get().label(), state.value.get())
    });
    let draw = move |canvas: &web_sys::HtmlCanvasElement| {
        let input = number_line::Input {
            id: state.fmt.get(),
            x: state.value.get(),
            overflow: state.overflow(),
        };
        warn_on_error(
            "number line",
            draw_chart(canvas, number_line::HEIGHT, &input),
        );
    };
    view! {
        <figure class="number-line">
            <CanvasChart label height=number_line::HEIGHT testid="number-line" draw />
            <SvgDownload />
            <figcaption>"Top: the representable values (blue ticks) around your value (orange line); the shaded band is everything that rounds to the same stored value. Bottom: the gap between neighbours doubles with every power of two, until values overflow (right) or round to zero (left)."</figcaption>
        </figure>
    }
}

/// Downloads the selected format's bit layout and number line as one SVG: the same document as
/// `bitbudget bits --format F VALUE --svg FILE`.
#[component]
fn SvgDownload() -> impl IntoView {
    let state = expect_context::<BitsState>();
    let (message, set_message) = signal(None::<String>);
    let download = move |_| {
        let (id, x, overflow) = untrack(|| (state.fmt.get(), state.value.get(), state.overflow()));
        let result = documents::bits(id, x, overflow)
            .map_err(|e| e.to_string())
            .and_then(|svg| {
                download_text(
                    &format!("bitbudget-{}-bits.svg", id.name()),
                    "image/svg+xml",
                    &svg,
                )
            });
        set_message.set(result.err());
    };
    view! {
        <div class="downloads" role="group" aria-label="Download">
            <button class="chip" data-testid="bits-download-svg" on:click=download>"Download SVG"</button>
            {move || message.get().map(|m| view! { <span class="field-error" role="alert">{m}</span> })}
        </div>
    }
}

impl crate::ui::shell::query::Page for crate::ui::pages::bits::query::BitsQuery {
    fn view(self, embed: bool) -> AnyView {
        view! { <BitsPage initial=self embed sync_url=true /> }.into_any()
    }
}
