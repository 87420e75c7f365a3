//! The shell's side of the URL: its own parameters (`tab`, `embed`, `theme`, `id`), the trait
//! each page's parameters implement, and the one parser that reads both. A page's binary links
//! only its own parameters' parser. Parsing is plain Rust (its unit tests need no page); every bad value falls
//! back to its default and leaves a note saying so.

use crate::ui::shell::url::{pairs, parse_widget_id, Tab, ThemeChoice};
use bitbudget_math::named::parse_flag;
use leptos::prelude::AnyView;

/// A page the shell can show: its URL parameters, and the view they start.
pub trait Page: PageQuery {
    /// Only ever shown embedded (a light embed's binary, `crate::ui::shell::light`): the site's
    /// header and footer are then not built, nor linked.
    const EMBED_ONLY: bool = false;

    /// The page, starting from `self` (read from the URL), keeping the address bar in step.
    fn view(self, embed: bool) -> AnyView;
}

/// A page's own URL parameters, read one `key=value` pair at a time by [`parse_page_query`].
pub trait PageQuery: Clone + Default + 'static {
    /// The page these parameters belong to.
    const TAB: Tab;

    /// Called once before any pair, with every key the URL names (in order, repeats kept).
    fn begin(&mut self, _keys: &[String]) {}

    /// Reads one pair: `None` when `key` is not this page's, `Some(Err(note))` when its value is
    /// refused (the page keeps what it had).
    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>>;

    /// Called once after every pair, to settle what depends on several parameters; each refused
    /// value adds a note.
    fn finish(&mut self, _keys: &[String], _notes: &mut Vec<String>) {}

    /// The query (with `?` and `tab=`) of the page that answers these parameters when another
    /// page does (the Memory page's serving jobs go to the Serve page); the shell opens it in this
    /// one's place, keeping its own parameters. `None`: this page answers.
    fn moved_to(&self) -> Option<String> {
        None
    }
}

/// The shell's parameters, and one note per parameter that was not understood (the page's too).
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ShellQuery {
    /// The page the URL names (`tab=`; the default page when absent or unknown).
    pub tab: Tab,
    /// Show the widget alone, for an iframe.
    pub embed: bool,
    /// The theme the URL asks for (`None`: the URL does not say).
    pub theme: Option<ThemeChoice>,
    /// The widget id for height messages (`None`: the URL gives none or an invalid one).
    pub widget_id: Option<String>,
    /// One sentence per parameter that was not understood.
    pub notes: Vec<String>,
}

/// Parses a `location.search` string (with or without the leading `?`) into the shell's
/// parameters and page `P`'s; a key that is neither leaves an "unknown parameter" note.
pub fn parse_page_query<P: PageQuery>(search: &str) -> (ShellQuery, P) {
    let pairs = pairs(search);
    let keys: Vec<String> = pairs.iter().map(|(k, _)| k.clone()).collect();
    let mut shell = ShellQuery::default();
    let mut page = P::default();
    page.begin(&keys);
    for (key, value) in pairs {
        match key.as_str() {
            "tab" => match value.parse() {
                Ok(tab) => shell.tab = tab,
                Err(e) => shell.notes.push(format!("{e}: showing {}", P::TAB.label())),
            },
            "embed" => shell.embed = flag(&key, &value, &mut shell.notes),
            "theme" => match value.parse() {
                Ok(theme) => shell.theme = Some(theme),
                Err(e) => shell.notes.push(format!("{e}: following the system")),
            },
            "id" => match parse_widget_id(&value) {
                Ok(id) => shell.widget_id = Some(id),
                Err(e) => shell.notes.push(e),
            },
            _ => match page.apply(&key, &value) {
                Some(Ok(())) => {}
                Some(Err(note)) => shell.notes.push(note),
                None => shell
                    .notes
                    .push(format!("unknown parameter '{key}' ignored")),
            },
        }
    }
    page.finish(&keys, &mut shell.notes);
    (shell, page)
}

/// Reads a `0`/`1` (or yes/no, true/false, on/off) parameter; anything else leaves a note and
/// reads as off.
pub fn flag(key: &str, value: &str, notes: &mut Vec<String>) -> bool {
    parse_flag(value).unwrap_or_else(|| {
        notes.push(format!("{key}={value} is not 0 or 1: ignored"));
        false
    })
}
