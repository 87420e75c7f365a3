//! bitbudget-app: the Leptos (client-side rendered) explainer. The numbers come from
//! `bitbudget-math`; this crate only presents them. Each page is a binary of its own
//! (`src/bin/`), so a page or widget loads only its own code; `index.html`'s boot script picks
//! the binary for the URL (Memory's and Serve's widgets start with a lighter one: `ui::shell::light`).

pub mod ui;

pub use ui::app::app;
