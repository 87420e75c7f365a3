//! The control that ranks the strategies chart's bars by memory per GPU or by time per step.

use crate::ui::components::fields::SelectField;
use crate::ui::pages::memory::state::{MemoryDetails, MemoryState};
use bitbudget_math::memory::step::order::StrategyOrder;
use leptos::prelude::*;

/// "Order by": the table's order, memory per GPU, or time per step (the Memory page's state).
#[component]
pub fn StrategyOrderSelect() -> impl IntoView {
    let state = expect_context::<MemoryState>();
    let details = expect_context::<MemoryDetails>();
    let options = StrategyOrder::ALL
        .iter()
        .map(|o| (o.name().to_string(), o.label().to_string()))
        .collect();
    let value = Signal::derive(move || details.order.get().name().to_string());
    let on_change = Callback::new(move |v: String| {
        if let Ok(o) = v.parse::<StrategyOrder>() {
            state.set(|q| q.order = o);
        }
    });
    view! { <SelectField label="Order by" key="strategy-order" options value on_change /> }
}
