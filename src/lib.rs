//! bitbudget-app: the Leptos (client-side rendered) explainer. The numbers come from
//! `bitbudget-math`; this crate only presents them.

pub mod bench;
pub mod ui;

pub use ui::app::App;
