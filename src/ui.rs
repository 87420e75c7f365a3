//! The user interface, sorted by page: `shell` (the frame around every page), `pages` (each
//! page's state, URL query, components and runtime), `components` (what two or more pages
//! share), and the browser glue every part uses.

pub mod app;
pub mod browser;
pub mod components;
pub mod observers;
pub mod pages;
pub mod shell;
pub mod url_state;
