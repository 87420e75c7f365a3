//! Typed URL query state: `?tab=bits&x=0.1&fmt=bf16&embed=1`. Parsing is plain Rust, tested
//! natively; every bad value falls back to its default and leaves a note saying so.
//!
//! Shell parameters, read by the app shell rather than a page: `embed=1` (the widget alone, for an
//! iframe), `theme=light|dark|auto` (the colour theme; `auto` follows the system) and `id=NAME`
//! (the widget's id in the height messages it posts to its host page, 1 to 64 characters from
//! `A-Z a-z 0-9 - _`).

use crate::ui::learn_query::Chapter;
use crate::ui::memory_query::MemoryQuery;
use crate::ui::quant_query::QuantQuery;
use bitbudget_math::format::{parse_value, FormatId};
use bitbudget_math::memory::job::find_option;

/// The app's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tab {
    /// Where GPU memory goes.
    #[default]
    Memory,
    /// The number-format explorer.
    Bits,
    /// The quantization lab.
    Quant,
    /// The guided explainer, chapter by chapter.
    Learn,
}

impl Tab {
    /// Every tab, in navigation order.
    pub const ALL: [Tab; 4] = [Tab::Memory, Tab::Bits, Tab::Quant, Tab::Learn];

    /// Name in the URL.
    pub const fn name(self) -> &'static str {
        match self {
            Tab::Memory => "memory",
            Tab::Bits => "bits",
            Tab::Quant => "quant",
            Tab::Learn => "learn",
        }
    }

    /// Label in the navigation.
    pub const fn label(self) -> &'static str {
        match self {
            Tab::Memory => "Memory",
            Tab::Bits => "Bits",
            Tab::Quant => "Quantize",
            Tab::Learn => "Learn",
        }
    }
}

bitbudget_math::name_text!(Tab, String, |s: &str| format!("unknown tab '{s}'"));

/// The colour theme asked for: a fixed one, or whatever the system prefers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ThemeChoice {
    /// Follow `prefers-color-scheme`.
    #[default]
    Auto,
    /// Always light.
    Light,
    /// Always dark.
    Dark,
}

impl ThemeChoice {
    /// Every choice, in the order the theme menu lists them.
    pub const ALL: [ThemeChoice; 3] = [ThemeChoice::Auto, ThemeChoice::Light, ThemeChoice::Dark];

    /// Name in the URL and in local storage.
    pub const fn name(self) -> &'static str {
        match self {
            ThemeChoice::Auto => "auto",
            ThemeChoice::Light => "light",
            ThemeChoice::Dark => "dark",
        }
    }

    /// Label in the theme menu.
    pub const fn label(self) -> &'static str {
        match self {
            ThemeChoice::Auto => "System",
            ThemeChoice::Light => "Light",
            ThemeChoice::Dark => "Dark",
        }
    }

    /// Whether this choice shows the dark theme, given whether the system prefers dark.
    pub const fn is_dark(self, system_dark: bool) -> bool {
        match self {
            ThemeChoice::Auto => system_dark,
            ThemeChoice::Light => false,
            ThemeChoice::Dark => true,
        }
    }
}

bitbudget_math::name_text!(ThemeChoice, String, |s: &str| format!(
    "theme '{s}' is not light, dark or auto"
));

/// The longest widget id accepted in `id=`, in characters.
pub const MAX_WIDGET_ID_CHARS: usize = 64;

/// Checks a widget id from `id=`: 1 to [`MAX_WIDGET_ID_CHARS`] characters from `A-Z a-z 0-9 - _`,
/// so it can be echoed to the host page as a JSON key without surprises.
pub fn parse_widget_id(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.chars().count() <= MAX_WIDGET_ID_CHARS
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "id: '{s}' is not 1 to {MAX_WIDGET_ID_CHARS} letters, digits, '-' or '_'; ignored"
        ))
    }
}

/// State of the Bits page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BitsQuery {
    /// The value as typed (always parseable in `fmt` when produced by [`parse_query`]).
    pub x: String,
    /// The selected format.
    pub fmt: FormatId,
    /// Saturating overflow instead of the formats' own inf/NaN convention.
    pub saturate: bool,
}

impl Default for BitsQuery {
    fn default() -> Self {
        Self {
            x: "0.1".into(),
            fmt: FormatId::Bf16,
            saturate: false,
        }
    }
}

/// Everything the URL says, plus notes about what was ignored.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct AppQuery {
    /// The page to show.
    pub tab: Tab,
    /// Show the widget alone, for an iframe.
    pub embed: bool,
    /// The theme the URL asks for (`None`: the URL does not say).
    pub theme: Option<ThemeChoice>,
    /// The widget id for height messages (`None`: the URL gives none or an invalid one).
    pub widget_id: Option<String>,
    /// Bits page state.
    pub bits: BitsQuery,
    /// Memory page state.
    pub memory: MemoryQuery,
    /// Quantize lab state.
    pub quant: QuantQuery,
    /// The Learn page's chapter (`step=`).
    pub chapter: Chapter,
    /// One sentence per parameter that was not understood.
    pub notes: Vec<String>,
}

/// Parses a `location.search` string (with or without the leading `?`).
pub fn parse_query(search: &str) -> AppQuery {
    let mut q = AppQuery::default();
    let mut x_text = None;
    let mut memory_named = false;
    let mut scheme_named = false;
    for (key, value) in pairs(search) {
        scheme_named |= key == "scheme";
        // A URL that names memory options means the table's defaults for the rest, as the CLI
        // does; only a URL that names none opens on the landing example.
        if !memory_named && find_option(&key).is_some() {
            memory_named = true;
            q.memory = q.memory.defaults_keeping_view();
        }
        match key.as_str() {
            "tab" => match value.parse() {
                Ok(tab) => q.tab = tab,
                Err(e) => q.notes.push(format!("{e}: showing {}", q.tab.label())),
            },
            "embed" => q.embed = flag(&key, &value, &mut q.notes),
            "theme" => match value.parse() {
                Ok(theme) => q.theme = Some(theme),
                Err(e) => q.notes.push(format!("{e}: following the system")),
            },
            "id" => match parse_widget_id(&value) {
                Ok(id) => q.widget_id = Some(id),
                Err(e) => q.notes.push(e),
            },
            "saturate" => q.bits.saturate = flag(&key, &value, &mut q.notes),
            "fmt" => match value.parse() {
                Ok(id) => q.bits.fmt = id,
                Err(e) => q.notes.push(format!("fmt: {e}; showing {}", q.bits.fmt)),
            },
            "x" => x_text = Some(value),
            "step" => match value.parse() {
                Ok(c) => q.chapter = c,
                Err(e) => q.notes.push(e),
            },
            _ => match q
                .memory
                .apply(&key, &value)
                .or_else(|| q.quant.apply(&key, &value))
            {
                Some(Ok(())) => {}
                Some(Err(note)) => q.notes.push(note),
                None => q.notes.push(format!("unknown parameter '{key}' ignored")),
            },
        }
    }
    q.quant.settle_selection(scheme_named);
    if let Some(x) = x_text {
        match parse_value(&x, q.bits.fmt) {
            Ok(_) => q.bits.x = x,
            Err(e) => q.notes.push(format!("x: {e}; showing {}", q.bits.x)),
        }
    }
    q
}

fn flag(key: &str, value: &str, notes: &mut Vec<String>) -> bool {
    match value {
        "1" | "true" | "yes" | "" => true,
        "0" | "false" | "no" => false,
        _ => {
            notes.push(format!("{key}={value} is not 0 or 1: ignored"));
            false
        }
    }
}

/// The query string (with `?`) that reproduces a Bits view.
pub fn bits_query_string(bits: &BitsQuery, embed: bool) -> String {
    let mut s = format!("?tab=bits&x={}&fmt={}", encode_component(&bits.x), bits.fmt);
    if bits.saturate {
        s.push_str("&saturate=1");
    }
    if embed {
        s.push_str("&embed=1");
    }
    s
}

/// The shell parameters (`&theme=..&id=..`, each only when set) that a page's own query string
/// leaves out; appended to it whenever the page writes the URL.
pub fn shell_suffix(theme: Option<ThemeChoice>, widget_id: Option<&str>) -> String {
    let mut s = String::new();
    if let Some(theme) = theme {
        s.push_str(&format!("&theme={theme}"));
    }
    if let Some(id) = widget_id {
        s.push_str(&format!("&id={}", encode_component(id)));
    }
    s
}

/// A query (with `?`) without the shell parameters `theme` and `id`, to which
/// [`shell_suffix`] can append them afresh.
pub fn without_shell_params(search: &str) -> String {
    keep_pairs(search, |k| k != "theme" && k != "id")
}

/// The query (with `?`) of the full page for a widget's query: the same state without `embed`
/// and `id`, which only mean something inside an iframe.
pub fn full_page_query(search: &str) -> String {
    keep_pairs(search, |k| k != "embed" && k != "id")
}

/// The query (with `?`) of the widget for a page's query: the same state with `embed=1` and the
/// given theme and id (replacing any the query had).
pub fn widget_query(search: &str, theme: ThemeChoice, widget_id: &str) -> String {
    let base = keep_pairs(search, |k| k != "embed" && k != "id" && k != "theme");
    let sep = if base.len() > 1 { "&" } else { "" };
    format!(
        "{base}{sep}embed=1&theme={theme}&id={}",
        encode_component(widget_id)
    )
}

/// A starting height for a page's widget, in CSS pixels: about what each widget needs at a
/// typical blog column width, before its first height message arrives.
pub const fn widget_start_height_px(tab: Tab) -> u32 {
    match tab {
        Tab::Memory => 760,
        Tab::Bits => 900,
        Tab::Quant => 1100,
        Tab::Learn => 900,
    }
}

/// The HTML an author pastes into a post to embed the widget at `src` (an absolute URL): an
/// iframe with a title for screen readers, a starting height, and the host script (at
/// `script_src`) that resizes it to its content.
pub fn embed_snippet(src: &str, script_src: &str, tab: Tab) -> String {
    format!(
        "<iframe src=\"{}\" title=\"bitbudget: {} widget\" width=\"100%\" height=\"{}\" loading=\"lazy\" style=\"border:0;width:100%\"></iframe>\n<script src=\"{}\" async></script>",
        escape_attr(src),
        tab.label(),
        widget_start_height_px(tab),
        escape_attr(script_src)
    )
}

fn escape_attr(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('"', "&quot;")
        .replace('<', "&lt;")
}

/// Rebuilds a query (with `?`, "?" alone when empty) keeping the pairs whose decoded key passes
/// `keep`, in their original order and encoding.
fn keep_pairs(search: &str, keep: impl Fn(&str) -> bool) -> String {
    let kept: Vec<&str> = search
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .filter(|p| keep(&decode_component(p.split_once('=').map_or(*p, |(k, _)| k))))
        .collect();
    format!("?{}", kept.join("&"))
}

/// Splits `a=b&c=d` into percent-decoded pairs (`+` is a space).
fn pairs(search: &str) -> Vec<(String, String)> {
    search
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (decode_component(k), decode_component(v))
        })
        .collect()
}

fn decode_component(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_digit(bytes[i + 1]), hex_digit(bytes[i + 2]))
            {
                (Some(hi), Some(lo)) => {
                    out.push(hi * 16 + lo);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn encode_component(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_bits_url_is_reproduced() {
        let q = parse_query("?tab=bits&x=0.1&fmt=bf16&embed=1");
        assert_eq!(q.tab, Tab::Bits);
        assert!(q.embed);
        assert_eq!(
            q.bits,
            BitsQuery {
                x: "0.1".into(),
                fmt: FormatId::Bf16,
                saturate: false
            }
        );
        assert!(q.notes.is_empty());
        assert_eq!(
            bits_query_string(&q.bits, true),
            "?tab=bits&x=0.1&fmt=bf16&embed=1"
        );
    }

    #[test]
    fn bad_values_fall_back_with_a_note_each() {
        let q = parse_query("tab=nope&x=abc&fmt=f7&embed=maybe&zzz=1");
        assert_eq!(q.tab, Tab::Memory);
        assert_eq!(q.bits, BitsQuery::default());
        assert!(!q.embed);
        assert_eq!(q.notes.len(), 5, "{:?}", q.notes);
        assert!(q.notes.iter().any(|n| n.contains("not a number")));
    }

    #[test]
    fn percent_encoding_round_trips() {
        let bits = BitsQuery {
            x: "-1e-3 ".trim().into(),
            fmt: FormatId::F8E4M3,
            saturate: true,
        };
        let q = parse_query(&bits_query_string(&bits, false));
        assert_eq!(q.bits, bits);
        assert_eq!(parse_query("x=%2D2.5&fmt=f16").bits.x, "-2.5");
        assert_eq!(parse_query("x=%zz").notes.len(), 1);
        assert_eq!(parse_query("x=%").notes.len(), 1);
        assert_eq!(
            parse_query("x=%\u{e9}1").notes.len(),
            1,
            "a multi-byte character after % does not panic"
        );
    }

    #[test]
    fn the_issue_example_memory_url_is_understood() {
        let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb");
        assert!(q.notes.is_empty(), "{:?}", q.notes);
        assert_eq!(q.tab, Tab::Memory);
        assert_eq!((q.memory.dp, q.memory.zero.0, q.memory.seq), (8, 3, 4096));
        let bad = parse_query("tab=memory&dp=zero&gpu=h1000");
        assert_eq!(bad.notes.len(), 2);
        assert_eq!(bad.memory, MemoryQuery::defaults());
    }

    /// `order` is a view option: before or after the memory options, it survives their reset to
    /// the table's defaults, and alone it keeps the landing example.
    #[test]
    fn the_strategy_order_is_read_wherever_it_stands_in_the_url() {
        use bitbudget_math::memory::step::order::StrategyOrder;
        for url in ["?order=time&model=gpt2", "?model=gpt2&order=time"] {
            let q = parse_query(url);
            assert!(q.notes.is_empty(), "{:?}", q.notes);
            assert_eq!(q.memory.1, StrategyOrder::StepTime, "{url}");
            assert_eq!(q.memory.model.as_deref(), Some("gpt2"));
        }
        let alone = parse_query("?tab=memory&order=memory");
        assert_eq!(alone.memory.0, MemoryQuery::default().0);
        let bad = parse_query("?tab=memory&order=fastest");
        assert_eq!(bad.memory, MemoryQuery::default());
        assert_eq!(bad.notes.len(), 1, "{:?}", bad.notes);
    }

    /// The page accepts every option the CLI does: a URL with a non-default value for each option of
    /// the table gives the setup the CLI's arguments give.
    #[test]
    fn every_cli_option_is_a_url_parameter() {
        use bitbudget_math::memory::job::{Job, OPTIONS};
        let values = |key: &str| match key {
            "model" => "custom",
            "params" => "none",
            "kv-heads" | "pp" | "tp" => "2",
            "mlp" => "swiglu",
            "mode" => "lora",
            "dtype" | "kv-dtype" => "fp16",
            "optimizer" => "sgd",
            "zero" => "3",
            "recompute" => "full",
            "lora-targets" => "q,k,mlp",
            "offload" => "all",
            "gpu" => "a100-80gb",
            "convention" => "hf-megatron",
            "units" => "gib",
            "precision" => "autocast",
            "optimizer-step" => "foreach",
            "adapter-dtype" => "fp32",
            "sequence-parallel" | "flash-attention" | "fp32-grad-accum" | "lora-dropout" => "1",
            _ => "4",
        };
        let pairs: Vec<(&str, &str)> = OPTIONS
            .iter()
            .map(|o| (o.name.key, values(o.name.key)))
            .collect();
        let url: String = pairs.iter().map(|(k, v)| format!("&{k}={v}")).collect();
        let q = parse_query(&format!("?tab=memory{url}"));
        assert!(q.notes.is_empty(), "{:?}", q.notes);
        let cli = Job::from_pairs(pairs.iter().copied()).unwrap();
        assert_eq!(q.memory.0, cli);
        assert_eq!(q.memory.to_setup(), cli.to_setup());
    }

    #[test]
    fn theme_and_id_are_read_and_bad_ones_leave_notes() {
        let q = parse_query("?tab=bits&theme=dark&id=post-7_a&embed=1");
        assert_eq!(q.theme, Some(ThemeChoice::Dark));
        assert_eq!(q.widget_id.as_deref(), Some("post-7_a"));
        assert!(q.notes.is_empty(), "{:?}", q.notes);
        let bad = parse_query("theme=purple&id=%3Cscript%3E");
        assert_eq!((bad.theme, bad.widget_id), (None, None));
        assert_eq!(bad.notes.len(), 2, "{:?}", bad.notes);
        assert!(bad.notes[0].contains("purple"));
        assert!(parse_widget_id(&"a".repeat(MAX_WIDGET_ID_CHARS + 1)).is_err());
        assert!(parse_widget_id("").is_err());
    }

    #[test]
    fn the_explicit_theme_wins_over_the_system() {
        assert!(ThemeChoice::Dark.is_dark(false));
        assert!(!ThemeChoice::Light.is_dark(true));
        assert!(ThemeChoice::Auto.is_dark(true));
        assert!(!ThemeChoice::Auto.is_dark(false));
        for t in ThemeChoice::ALL {
            assert_eq!(t.name().parse::<ThemeChoice>(), Ok(t));
        }
    }

    #[test]
    fn widget_and_full_page_queries_keep_the_state() {
        let page = "?tab=bits&x=%2D2.5&fmt=f16&theme=light";
        let widget = widget_query(page, ThemeChoice::Dark, "w1");
        assert_eq!(
            widget,
            "?tab=bits&x=%2D2.5&fmt=f16&embed=1&theme=dark&id=w1"
        );
        let q = parse_query(&widget);
        assert!(q.embed && q.notes.is_empty());
        assert_eq!(q.bits.x, "-2.5");
        assert_eq!(
            full_page_query(&widget),
            "?tab=bits&x=%2D2.5&fmt=f16&theme=dark"
        );
        assert_eq!(
            widget_query("", ThemeChoice::Auto, "a"),
            "?embed=1&theme=auto&id=a"
        );
        assert_eq!(
            shell_suffix(Some(ThemeChoice::Light), Some("a")),
            "&theme=light&id=a"
        );
        assert_eq!(shell_suffix(None, None), "");
        assert_eq!(
            without_shell_params("?tab=bits&theme=dark&id=a&x=1"),
            "?tab=bits&x=1"
        );
    }

    #[test]
    fn the_snippet_has_a_title_a_height_and_escaped_urls() {
        let s = embed_snippet(
            "https://h.example/b/?tab=memory&embed=1",
            "https://h.example/b/embed.js",
            Tab::Memory,
        );
        assert!(s.contains("title=\"bitbudget: Memory widget\""), "{s}");
        assert!(s.contains(&format!(
            "height=\"{}\"",
            widget_start_height_px(Tab::Memory)
        )));
        assert!(s.contains("?tab=memory&amp;embed=1"), "{s}");
        assert!(s.contains("<script src=\"https://h.example/b/embed.js\" async></script>"));
        assert!(!embed_snippet("\"><x", "s", Tab::Bits).contains("\"><x"));
    }

    #[test]
    fn a_pattern_is_read_in_the_format_given_anywhere_in_the_url() {
        let q = parse_query("x=0x7e&fmt=f8e4m3");
        assert_eq!(q.bits.x, "0x7e");
        assert!(q.notes.is_empty());
    }
}
