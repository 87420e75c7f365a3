//! The shell's URL vocabulary: the pages (`tab=`), the theme (`theme=`), the widget id (`id=`),
//! and the query-string helpers every page's URL state uses (pairs, percent-coding, the widget's
//! and the full page's queries, the embed snippet). Nothing here knows a page's own parameters.
//!
//! Shell parameters, read by the app shell rather than a page: `embed=1` (the widget alone, for an
//! iframe), `theme=light|dark|auto` (the colour theme; `auto` follows the system) and `id=NAME`
//! (the widget's id in the height messages it posts to its host page, 1 to 64 characters from
//! `A-Z a-z 0-9 - _`).

/// The app's pages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Tab {
    /// Where GPU memory goes.
    #[default]
    Memory,
    /// Serving as the engines do: KV budget, concurrency, tokens per second.
    Serve,
    /// The number-format explorer.
    Bits,
    /// The quantization lab.
    Quant,
    /// The guided explainer, chapter by chapter.
    Learn,
}

impl Tab {
    /// Every tab, in navigation order.
    pub const ALL: [Tab; 5] = [Tab::Memory, Tab::Serve, Tab::Bits, Tab::Quant, Tab::Learn];

    /// Name in the URL.
    pub const fn name(self) -> &'static str {
        match self {
            Tab::Memory => "memory",
            Tab::Serve => "serve",
            Tab::Bits => "bits",
            Tab::Quant => "quant",
            Tab::Learn => "learn",
        }
    }

    /// Label in the navigation.
    pub const fn label(self) -> &'static str {
        match self {
            Tab::Memory => "Memory",
            Tab::Serve => "Serve",
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
/// typical blog column width (760 px, the details closed), before its first height message
/// arrives.
pub const fn widget_start_height_px(tab: Tab) -> u32 {
    match tab {
        Tab::Memory => 940,
        Tab::Serve => 950,
        Tab::Bits => 1050,
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
pub fn pairs(search: &str) -> Vec<(String, String)> {
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

/// Percent-decodes a query component (`+` is a space; an invalid escape is kept as typed).
pub fn decode_component(s: &str) -> String {
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

/// Percent-encodes a query component (RFC 3986 unreserved characters stay as they are).
pub fn encode_component(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
