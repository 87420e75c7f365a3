//! Every page's URL parameters at once (`?tab=bits&x=0.1&fmt=bf16&embed=1`): what the tests and
//! tools read any of the app's URLs with. The app itself reads one page's through
//! `shell::query::parse_page_query`.

use crate::ui::pages::bits::query::BitsQuery;
use crate::ui::pages::learn::query::Chapter;
use crate::ui::pages::memory::query::MemoryQuery;
use crate::ui::pages::quant::query::QuantQuery;
use crate::ui::pages::serve::query::ServeQuery;
use crate::ui::shell::query::{parse_page_query, PageQuery};
use crate::ui::shell::url::{Tab, ThemeChoice};

/// Every page's parameters at once: what the tests and tools read any of the app's URLs with.
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
    /// Serve page state.
    pub serve: ServeQuery,
    /// The Learn page's chapter (`step=`).
    pub chapter: Chapter,
    /// One sentence per parameter that was not understood.
    pub notes: Vec<String>,
}

/// Every page's parameters, each pair offered to each page in turn.
#[derive(Clone, Debug, PartialEq, Default)]
struct AllPages {
    bits: BitsQuery,
    memory: MemoryQuery,
    quant: QuantQuery,
    serve: ServeQuery,
    chapter: Chapter,
}

impl PageQuery for AllPages {
    const TAB: Tab = Tab::Memory;

    fn begin(&mut self, keys: &[String]) {
        self.bits.begin(keys);
        self.memory.begin(keys);
        self.quant.begin(keys);
        self.serve.begin(keys);
        self.chapter.begin(keys);
    }

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        self.bits
            .apply(key, value)
            .or_else(|| self.chapter.apply(key, value))
            .or_else(|| self.memory.apply(key, value))
            .or_else(|| self.quant.apply(key, value))
            .or_else(|| self.serve.apply(key, value))
    }

    fn finish(&mut self, keys: &[String], notes: &mut Vec<String>) {
        self.quant.finish(keys, notes);
        self.bits.finish(keys, notes);
        self.memory.finish(keys, notes);
        self.serve.finish(keys, notes);
        self.chapter.finish(keys, notes);
    }
}

/// Parses a `location.search` string (with or without the leading `?`) for every page at once.
pub fn parse_query(search: &str) -> AppQuery {
    let (shell, all) = parse_page_query::<AllPages>(search);
    AppQuery {
        tab: shell.tab,
        embed: shell.embed,
        theme: shell.theme,
        widget_id: shell.widget_id,
        bits: all.bits,
        memory: all.memory,
        quant: all.quant,
        serve: all.serve,
        chapter: all.chapter,
        notes: shell.notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::pages::bits::query::bits_query_string;
    use crate::ui::shell::url::*;
    use bitbudget_math::format::FormatId;
    use wasm_bindgen_test::wasm_bindgen_test;

    #[wasm_bindgen_test]
    fn a_full_bits_url_is_reproduced() {
        let q = parse_query("?tab=bits&x=0.1&fmt=bf16&embed=1");
        assert_eq!(q.tab, Tab::Bits);
        assert!(q.embed);
        assert_eq!(
            q.bits,
            BitsQuery {
                x: "0.1".into(),
                fmt: FormatId::Bf16,
                ..BitsQuery::default()
            }
        );
        assert!(q.notes.is_empty());
        assert_eq!(
            bits_query_string(&q.bits, true),
            "?tab=bits&x=0.1&fmt=bf16&embed=1"
        );
    }

    #[wasm_bindgen_test]
    fn bad_values_fall_back_with_a_note_each() {
        let q = parse_query("tab=nope&x=abc&fmt=f7&embed=maybe&zzz=1");
        assert_eq!(q.tab, Tab::Memory);
        assert_eq!(q.bits, BitsQuery::default());
        assert!(!q.embed);
        assert_eq!(q.notes.len(), 5, "{:?}", q.notes);
        assert!(q.notes.iter().any(|n| n.contains("not a number")));
    }

    #[wasm_bindgen_test]
    fn percent_encoding_round_trips() {
        let bits = BitsQuery {
            x: "-1e-3 ".trim().into(),
            fmt: FormatId::F8E4M3,
            saturate: true,
            ..BitsQuery::default()
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

    #[wasm_bindgen_test]
    fn the_issue_example_memory_url_is_understood() {
        let q = parse_query("?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb");
        assert!(q.notes.is_empty(), "{:?}", q.notes);
        assert_eq!(q.tab, Tab::Memory);
        assert_eq!(
            (q.memory.job.dp, q.memory.job.zero.0, q.memory.job.seq),
            (8, 3, 4096)
        );
        let bad = parse_query("tab=memory&dp=zero&gpu=h1000");
        assert_eq!(bad.notes.len(), 2);
        assert_eq!(bad.memory, MemoryQuery::defaults());
    }

    /// `order` is a view option: before or after the memory options, it survives their reset to
    /// the table's defaults, and alone it keeps the landing example.
    #[wasm_bindgen_test]
    fn the_strategy_order_is_read_wherever_it_stands_in_the_url() {
        use bitbudget_math::memory::step::order::StrategyOrder;
        for url in ["?order=time&model=gpt2", "?model=gpt2&order=time"] {
            let q = parse_query(url);
            assert!(q.notes.is_empty(), "{:?}", q.notes);
            assert_eq!(q.memory.order, StrategyOrder::StepTime, "{url}");
            assert_eq!(q.memory.job.model.as_deref(), Some("gpt2"));
        }
        let alone = parse_query("?tab=memory&order=memory");
        assert_eq!(alone.memory.job, MemoryQuery::default().job);
        let bad = parse_query("?tab=memory&order=fastest");
        assert_eq!(bad.memory, MemoryQuery::default());
        assert_eq!(bad.notes.len(), 1, "{:?}", bad.notes);
    }

    /// The page accepts every option the CLI does: a URL with a non-default value for each option of
    /// the table gives the setup the CLI's arguments give.
    #[wasm_bindgen_test]
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
            "moments" => "bf16",
            "flash-attention" => "0",
            "expert-load" => "150",
            // Sizes that agree with the custom numbers (4 layers, hidden 4, 4 heads, 2 KV heads ...).
            "arch" => "test.L4.H4.A4.K2.D1.F4.V4.S4096",
            "sequence-parallel" | "fp32-grad-accum" | "lora-dropout" | "fp8-param-gather" => "1",
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
        assert_eq!(q.memory.job, cli);
        assert_eq!(q.memory.to_setup(), cli.to_setup());
    }

    #[wasm_bindgen_test]
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

    #[wasm_bindgen_test]
    fn the_explicit_theme_wins_over_the_system() {
        assert!(ThemeChoice::Dark.is_dark(false));
        assert!(!ThemeChoice::Light.is_dark(true));
        assert!(ThemeChoice::Auto.is_dark(true));
        assert!(!ThemeChoice::Auto.is_dark(false));
        for t in ThemeChoice::ALL {
            assert_eq!(t.name().parse::<ThemeChoice>(), Ok(t));
        }
    }

    #[wasm_bindgen_test]
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

    #[wasm_bindgen_test]
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

    #[wasm_bindgen_test]
    fn a_pattern_is_read_in_the_format_given_anywhere_in_the_url() {
        let q = parse_query("x=0x7e&fmt=f8e4m3");
        assert_eq!(q.bits.x, "0x7e");
        assert!(q.notes.is_empty());
    }

    /// index.html's boot script picks a page's binary from the same list, the default first.
    #[wasm_bindgen_test]
    fn the_boot_script_knows_every_page() {
        let html = include_str!("../../index.html");
        let names: Vec<String> = Tab::ALL.iter().map(|t| format!("'{t}'")).collect();
        let want = format!("const PAGES = [{}];", names.join(", "));
        assert!(html.contains(&want), "index.html lacks `{want}`");
        assert_eq!(Tab::ALL[0], Tab::default());
        for t in Tab::ALL {
            let link = format!("data-bin=\"bitbudget-{t}\"");
            assert!(html.contains(&link), "index.html builds no {link}");
        }
        let light = crate::ui::shell::light::LIGHT_EMBEDS;
        let names: Vec<String> = light.iter().map(|t| format!("'{t}'")).collect();
        let want = format!("const LIGHT = [{}];", names.join(", "));
        assert!(html.contains(&want), "index.html lacks `{want}`");
        let cargo = include_str!("../../Cargo.toml");
        for t in light {
            let bin = format!("bitbudget-{t}-embed");
            assert!(
                html.contains(&format!("data-bin=\"{bin}\"")),
                "index.html builds no {bin}"
            );
            assert!(
                cargo.contains(&format!("name = \"{bin}\"")),
                "Cargo.toml has no binary {bin}"
            );
        }
    }

    /// The lists the end-to-end scripts need, from the Rust that defines them: every scheme, the
    /// number of Learn chapters and the pages. `tests/e2e/facts.json` must equal this document
    /// (on a failure, write the expected document, which the message shows, into the file).
    #[wasm_bindgen_test]
    fn e2e_facts_json_is_the_rust_lists() {
        use bitbudget_math::quant::scheme::Scheme;
        let quoted = |names: Vec<String>| {
            names
                .iter()
                .map(|n| format!("\"{n}\""))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let schemes = quoted(Scheme::ALL.iter().map(|s| s.name().to_string()).collect());
        let pages = quoted(Tab::ALL.iter().map(|t| t.to_string()).collect());
        let want = format!(
            "{{\n  \"schemes\": [{schemes}],\n  \"chapters\": {},\n  \"pages\": [{pages}]\n}}\n",
            crate::ui::pages::learn::query::Chapter::COUNT
        );
        assert_eq!(
            include_str!("../../tests/e2e/facts.json"),
            want,
            "tests/e2e/facts.json is stale: write the expected document (right) into it"
        );
    }
}
