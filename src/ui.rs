//! The user interface: pages, components, charts and URL state.

pub mod app;
pub mod bits_state;
pub mod browser;
pub mod components;
pub mod gpu_lab;
pub mod lab_upload;
pub mod lab_workers;
pub mod learn_query;
pub mod memory_query;
pub mod memory_state;
pub mod observers;
pub mod pages;
pub mod palette;
pub mod quant_query;
pub mod quant_state;
pub mod url_state;
