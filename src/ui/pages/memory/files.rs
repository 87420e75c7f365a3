//! What the Memory page does with files, kept out of the page's own binary: its downloads (the bar
//! chart as a 2x PNG and as an SVG, both titled with the setup in a caption line; the breakdown as
//! CSV and as the CLI's JSON) and reading a Hugging Face `config.json` into its setup. These run in
//! the on-demand module [`MODULE`] (`src/bin/memory_files.rs`), which the page loads the first
//! time a reader reaches for them (`ui::shell::on_demand`); the page hands over its setup as its
//! URL query, which holds every control's value.

use crate::ui::browser::{download_text, download_url};
use crate::ui::pages::memory::query::MemoryQuery;
use crate::ui::pages::memory::validation_panel::load_measurements;
use crate::ui::shell::query::parse_page_query;
use bitbudget_charts::documents::{self, MemoryChart};
use bitbudget_charts::{Scale, LIGHT};
use bitbudget_math::memory::report::export::{report_checked, Report};
use bitbudget_math::memory::report::validation::Validation;
use bitbudget_math::numbers::format_count;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

/// The on-demand module's name in the boot script's bundle list (`bitbudget-memory-files`).
pub const MODULE: &str = "memory-files";
/// Its export that makes and offers a download: `(kind, query) → Promise<undefined>`.
pub const DOWNLOAD: &str = "download";
/// Its export that reads a config: `(query, text) → [query, message]`.
pub const READ_CONFIG: &str = "read_config";

/// A file the Memory page offers, by the name its button and the module's `kind` argument use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// The bar chart at twice the size, for a slide.
    Png,
    /// The bar chart as the CLI's `memory ... --svg FILE --chart bar` writes it.
    Svg,
    /// The breakdown, a row per part.
    Csv,
    /// The breakdown as the CLI's `--json` prints it.
    Json,
}

impl FileKind {
    /// Every kind, in the order of the page's buttons.
    pub const ALL: [FileKind; 4] = [FileKind::Png, FileKind::Svg, FileKind::Csv, FileKind::Json];

    /// The file name's extension, also the kind's name across the module boundary.
    pub fn extension(self) -> &'static str {
        match self {
            FileKind::Png => "png",
            FileKind::Svg => "svg",
            FileKind::Csv => "csv",
            FileKind::Json => "json",
        }
    }

    /// The kind whose [`FileKind::extension`] is `name`, if any.
    pub fn named(name: &str) -> Option<FileKind> {
        Self::ALL.into_iter().find(|k| k.extension() == name)
    }
}

/// The page's state as its URL query says it; a query the page wrote always reads back whole.
fn read_query(query: &str) -> MemoryQuery {
    parse_page_query::<MemoryQuery>(query).1
}

/// `bitbudget-<model>-<mode>-zero<stage>-dp<degree>`: the downloads' file name without extension.
fn file_stem(q: &MemoryQuery) -> String {
    format!(
        "bitbudget-{}-{}-zero{}-dp{}",
        q.job.model.as_deref().unwrap_or("custom"),
        q.job.mode,
        q.job.zero,
        q.job.dp
    )
}

thread_local! {
    /// The PyTorch measurements, read once per module (the page fetched the same files, so the
    /// browser's cache answers); an error is kept too, and the reports then go without the check.
    static MEASUREMENTS: RefCell<Option<Rc<Result<Validation, String>>>> = const { RefCell::new(None) };
}

async fn measurements() -> Rc<Result<Validation, String>> {
    if let Some(m) = MEASUREMENTS.with(|m| m.borrow().clone()) {
        return m;
    }
    let loaded = Rc::new(load_measurements().await);
    MEASUREMENTS.with(|m| *m.borrow_mut() = Some(loaded.clone()));
    loaded
}

/// The report of the query's setup and step knobs, with the PyTorch check of the nearest
/// measured setup when the measurements could be read.
async fn report(q: &MemoryQuery) -> Result<Report, String> {
    let setup = q.to_setup();
    let checked = match measurements().await.as_ref() {
        Ok(v) => v.check_nearest(&setup),
        Err(_) => None,
    };
    report_checked(&setup, &q.job.step_params(), checked).map_err(|e| e.to_string())
}

/// The bar chart as a PNG `data:` URL: the same title, chart and setup caption as the SVG, drawn
/// at twice the size on a canvas that is never shown.
fn bar_png(q: &MemoryQuery) -> Result<String, String> {
    let setup = q.to_setup();
    let scale = Scale(2.0);
    let (w, h) = documents::memory_size(&setup, MemoryChart::Bar, scale);
    let canvas: web_sys::HtmlCanvasElement = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("canvas").ok())
        .ok_or("the browser could not make a canvas")?
        .unchecked_into();
    canvas.set_width(w);
    canvas.set_height(h);
    let backend = plotters_canvas::CanvasBackend::with_canvas_object(canvas.clone())
        .ok_or("the canvas has no 2D context")?;
    let area = plotters::prelude::IntoDrawingArea::into_drawing_area(backend);
    documents::draw_memory_bar(&area, &setup, &LIGHT, scale).map_err(|e| e.to_string())?;
    canvas
        .to_data_url()
        .map_err(|_| "the browser refused to export the canvas".to_string())
}

/// Makes the file `kind` names (a [`FileKind::extension`]) for the page whose URL query is
/// `query`, and offers it as a download; an error says why there is none.
pub async fn download(kind: &str, query: &str) -> Result<(), String> {
    let kind = FileKind::named(kind).ok_or_else(|| format!("no download of kind '{kind}'"))?;
    let q = read_query(query);
    let name = format!("{}.{}", file_stem(&q), kind.extension());
    match kind {
        FileKind::Png => download_url(&name, &bar_png(&q)?),
        FileKind::Svg => {
            let svg = documents::memory_bar_document(&q.to_setup()).map_err(|e| e.to_string())?;
            download_text(&name, "image/svg+xml", &svg)
        }
        FileKind::Csv => download_text(&name, "text/csv", &report(&q).await?.to_csv()),
        FileKind::Json => {
            let text =
                serde_json::to_string_pretty(&report(&q).await?).map_err(|e| e.to_string())?;
            download_text(&name, "application/json", &text)
        }
    }
}

/// Reads a Hugging Face `config.json` (`text`) into the setup of the page whose URL query is
/// `query`: the new query (the config's architecture travels in it) and the sentence the page
/// shows, or why the config cannot be read (the missing or bad field).
pub fn read_config(query: &str, text: &str) -> Result<(String, String), String> {
    let mut q = read_query(query);
    q.job.load_config(text).map_err(|e| e.to_string())?;
    let params = q.to_setup().arch().map_or(0, |a| a.params());
    let name = q.job.config.as_ref().map_or("", |c| c.name.as_str());
    let said = format!("Sizing {name}: {} parameters.", format_count(params));
    Ok((q.to_query_string(false), said))
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasm_bindgen_test::wasm_bindgen_test;

    const LLAMA_1B: &str = include_str!("../../../../validation/configs/llama-3.2-1b.json");

    #[wasm_bindgen_test]
    fn every_kind_is_named_by_its_extension() {
        for k in FileKind::ALL {
            assert_eq!(FileKind::named(k.extension()), Some(k));
        }
        assert_eq!(FileKind::named("pdf"), None);
    }

    /// The module answers with a query that reads back to the page's setup with the config in
    /// force and the other controls as they were.
    #[wasm_bindgen_test]
    fn a_config_read_by_the_module_reads_back_into_the_same_setup() {
        let page = "?tab=memory&model=gpt2&dp=16&zero=2&seq=2048&order=time";
        let (query, said) = read_config(page, LLAMA_1B).unwrap();
        assert_eq!(said, "Sizing config.json (llama): 1.24B parameters.");
        let mut direct = read_query(page);
        direct.job.load_config(LLAMA_1B).unwrap();
        assert_eq!(read_query(&query), direct);
        assert!(read_config(page, "{}").is_err());
    }

    /// index.html's boot script loads the module by this name, and builds its binary.
    #[wasm_bindgen_test]
    fn the_boot_script_knows_the_module() {
        let html = include_str!("../../../../index.html");
        let want = format!("const MODULES = ['{MODULE}'];");
        assert!(html.contains(&want), "index.html lacks `{want}`");
        let bin = format!("bitbudget-{MODULE}");
        assert!(
            html.contains(&format!("data-bin=\"{bin}\"")),
            "index.html builds no {bin}"
        );
        let cargo = include_str!("../../../../Cargo.toml");
        assert!(
            cargo.contains(&format!("name = \"{bin}\"")),
            "Cargo.toml has no {bin}"
        );
    }

    #[wasm_bindgen_test]
    fn the_file_names_say_the_setup() {
        let q = read_query("?tab=memory&model=llama-3-8b&mode=train&zero=3&dp=8");
        assert_eq!(file_stem(&q), "bitbudget-llama-3-8b-train-zero3-dp8");
    }
}
