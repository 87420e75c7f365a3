//! Typed URL state of the Memory page: the math crate's [`Job`], parsed and printed through the
//! same option table as the CLI's arguments (`memory::job::OPTIONS`), so a URL key is a CLI long
//! name with the same values and defaults
//! (`?tab=memory&model=llama-3-8b&zero=3&dp=8&seq=4096&gpu=h100-80gb`). One view option rides
//! along that the CLI has no use for: `order=memory|time`, how the strategies chart ranks its bars.

use crate::ui::components::serve_link::serve_query;
use crate::ui::shell::query::PageQuery;
use crate::ui::shell::url::Tab;
use bitbudget_math::memory::job::find_option;
use bitbudget_math::memory::job::{parse_count, Job};
use bitbudget_math::memory::step::order::StrategyOrder;
use bitbudget_math::memory::{Mode, Setup};
use bitbudget_math::serve::from_memory::serving_job;

/// What the page shows when the URL names no memory option: Llama 3 8B, full BF16 training with
/// AdamW and fused attention (the default), sequence 4096, data parallel over 8 × H100 80GB. With DDP every GPU
/// holds all 16 B per parameter and it does not fit, while ZeRO sharding does: the strategies chart
/// shows the lesson at first sight. Everything else is the option table's default.
pub const LANDING: &[(&str, &str)] = &[
    ("model", "llama-3-8b"),
    ("dp", "8"),
    ("seq", "4096"),
    ("gpu", "h100-80gb"),
];

/// Largest overhead the page's MiB field accepts (1 TiB, as the table's `overhead` in bytes).
const MAX_OVERHEAD_MIB: u64 = 1 << 20;

/// The URL key of the strategies chart's order (not a CLI option: the CLI prints no chart order).
pub const ORDER_KEY: &str = "order";

/// Everything the Memory page's controls hold: the job and the order of the strategies chart.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryQuery {
    /// The setup, as the CLI's arguments describe it.
    pub job: Job,
    /// How the strategies chart ranks its bars (`order=` in the URL, left out when the default).
    pub order: StrategyOrder,
}

impl From<Job> for MemoryQuery {
    /// The job, with the strategies in the table's order.
    fn from(job: Job) -> Self {
        Self {
            job,
            order: StrategyOrder::default(),
        }
    }
}

impl Default for MemoryQuery {
    /// The [`LANDING`] example.
    fn default() -> Self {
        let mut job = Job::default();
        for (k, v) in LANDING {
            // The landing pairs are checked by `the_landing_example_parses`.
            let _ = job.apply(k, v);
        }
        Self::from(job)
    }
}

impl MemoryQuery {
    /// The option table's defaults: what a URL means by the options it leaves out.
    pub fn defaults() -> Self {
        Self::from(Job::default())
    }

    /// The option table's defaults, keeping this query's chart order: what a URL that names
    /// memory options means by those it leaves out, whatever came first.
    pub fn defaults_keeping_view(&self) -> Self {
        Self {
            job: Job::default(),
            order: self.order,
        }
    }

    /// Applies one URL parameter. `None` for keys that are not memory options (nor `order`);
    /// `Some(Err)` with a note for a bad value (the field keeps its value, the default when
    /// parsing a URL).
    pub fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        if key == ORDER_KEY {
            return Some(match value.parse() {
                Ok(order) => {
                    self.order = order;
                    Ok(())
                }
                Err(e) => Err(format!(
                    "In the link, {e}; keeping the order {}.",
                    StrategyOrder::default().label()
                )),
            });
        }
        self.job
            .apply(key, value)
            .map(|r| r.map_err(|e| format!("In the link, {e}; keeping the default.")))
    }

    /// The numeric field named `key` (a count option of the table, or `overhead-mib`, the
    /// overhead rounded to whole MiB), 0 for other keys.
    pub fn count(&self, key: &str) -> u64 {
        match key {
            "overhead-mib" => (self.job.overhead_bytes + (1 << 19)) >> 20,
            _ => self.job.count(key).unwrap_or(0),
        }
    }

    /// Sets the numeric field named `key` to `n`, a value [`parse_field`] accepted.
    pub fn set_count(&mut self, key: &str, n: u64) {
        match key {
            "overhead-mib" => self.job.overhead_bytes = n.min(MAX_OVERHEAD_MIB) << 20,
            _ => {
                // `n` came from `parse_field(key, ..)`, so the table accepts it.
                let _ = self.job.apply(key, &n.to_string());
            }
        }
    }

    /// The query string (with `?`) that reproduces this view: the model, then every option that
    /// differs from the table's default, then the chart order unless it is the default.
    pub fn to_query_string(&self, embed: bool) -> String {
        let mut s = String::from("?tab=memory");
        for (k, v) in self.job.to_pairs(true) {
            s += &format!("&{k}={v}");
        }
        if self.order != StrategyOrder::default() {
            s += &format!("&{ORDER_KEY}={}", self.order);
        }
        if embed {
            s += "&embed=1";
        }
        s
    }

    /// The math crate's setup for this query (the GPU preset included).
    pub fn to_setup(&self) -> Setup {
        self.job.to_setup()
    }
}

/// Parses a count typed into the field `key` with the option table's parser and limits (MiB for
/// `overhead-mib`), or says why not.
pub fn parse_field(key: &str, text: &str) -> Result<u64, String> {
    if key == "overhead-mib" {
        let n = parse_count(text)?;
        return match n <= MAX_OVERHEAD_MIB {
            true => Ok(n),
            false => Err(format!(
                "overhead {n} MiB is above the limit of {MAX_OVERHEAD_MIB}"
            )),
        };
    }
    let mut job = Job::default();
    match job.apply(key, text) {
        Some(Ok(())) => job
            .count(key)
            .ok_or_else(|| format!("{key} is not a number field")),
        Some(Err(e)) => Err(e.to_string()),
        None => Err(format!("{key} is not a memory option")),
    }
}

impl PageQuery for MemoryQuery {
    const TAB: Tab = Tab::Memory;

    /// A URL that names memory options means the table's defaults for the rest, as the CLI does;
    /// only a URL that names none opens on the landing example.
    fn begin(&mut self, keys: &[String]) {
        if keys.iter().any(|k| find_option(k).is_some()) {
            *self = self.defaults_keeping_view();
        }
    }

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        MemoryQuery::apply(self, key, value)
    }

    /// Serving (`mode=inference`, as links made before the Serve page say it) is sized on the
    /// Serve page, as the engines account for it: such a link opens there with its model, GPU,
    /// types, length and batch.
    fn moved_to(&self) -> Option<String> {
        (self.job.mode == Mode::Inference).then(|| serve_query(&serving_job(&self.job)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitbudget_math::memory::{Mlp, ZeroStage};
    use bitbudget_math::numbers::Units;
    use wasm_bindgen_test::wasm_bindgen_test;

    fn through_url(q: &MemoryQuery) -> MemoryQuery {
        let mut back = MemoryQuery::defaults();
        let text = q.to_query_string(false);
        for pair in text.trim_start_matches('?').split('&') {
            let (k, v) = pair.split_once('=').unwrap();
            if k != "tab" {
                assert_eq!(back.apply(k, v), Some(Ok(())), "{k}={v}");
            }
        }
        back
    }

    #[wasm_bindgen_test]
    fn every_field_round_trips_through_the_url() {
        let mut q = MemoryQuery::from({
            let mut changed = MemoryQuery::default().job;
            changed.model = None;
            changed.dp = 8;
            changed.zero = ZeroStage(3);
            changed.flash_attention = false;
            changed.sequence_parallel = true;
            changed.units = Units::Gib;
            changed
        });
        q.job.custom.mlp = Mlp::Swiglu;
        q.job.custom.layers = 7;
        q.set_count("overhead-mib", 512);
        assert_eq!(through_url(&q), q);
        assert_eq!(through_url(&MemoryQuery::default()), MemoryQuery::default());
    }

    #[wasm_bindgen_test]
    fn the_strategy_order_round_trips_through_the_url_and_is_left_out_by_default() {
        for order in StrategyOrder::ALL {
            let q = MemoryQuery {
                job: MemoryQuery::default().job,
                order,
            };
            let text = q.to_query_string(false);
            assert_eq!(
                text.contains("order="),
                order != StrategyOrder::default(),
                "{text}"
            );
            assert_eq!(through_url(&q), q);
        }
        let by_time = MemoryQuery {
            job: Job::default(),
            order: StrategyOrder::StepTime,
        };
        assert!(by_time.to_query_string(false).ends_with("&order=time"));
    }

    #[wasm_bindgen_test]
    fn a_bad_strategy_order_keeps_the_default_and_says_so() {
        let mut q = MemoryQuery::default();
        for bad in ["speed", "", "TIME%", "1e15"] {
            let note = q.apply("order", bad).unwrap().unwrap_err();
            assert!(note.contains("is not table, memory or time"), "{note}");
        }
        assert_eq!(q, MemoryQuery::default());
        assert_eq!(q.apply("order", "Memory"), Some(Ok(())));
        assert_eq!(q.order, StrategyOrder::Memory);
    }

    #[wasm_bindgen_test]
    fn the_landing_example_parses() {
        assert_eq!(
            Job::from_pairs(LANDING.iter().copied()).as_ref(),
            Ok(&MemoryQuery::default().job)
        );
    }

    #[wasm_bindgen_test]
    fn bad_values_keep_defaults_and_say_so() {
        let mut q = MemoryQuery::default();
        let refused = [
            ("dp", "0", "at least one GPU"),
            ("seq", "1e400", ""),
            ("seq", "NaN", ""),
            ("model", "llama-9", "not a model preset"),
            ("zero", "7", ""),
        ];
        for (key, value, says) in refused {
            let e = q.apply(key, value).unwrap().unwrap_err();
            assert!(e.contains(says), "{key}={value}: {e}");
        }
        assert_eq!(q.apply("nonsense", "1"), None);
        assert_eq!(q, MemoryQuery::default());
    }

    /// Notes from a link are plain words: no "dp: dp: 0 is outside 1..=1048576".
    #[wasm_bindgen_test]
    fn link_notes_name_the_option_in_words_not_its_key() {
        let mut q = MemoryQuery::default();
        let note = q.apply("dp", "0").unwrap().unwrap_err();
        assert_eq!(
            note,
            "In the link, data-parallel degree is 0: at least one GPU is needed; keeping the default."
        );
        assert_eq!(
            parse_field("dp", "0").unwrap_err(),
            "data-parallel degree is 0: at least one GPU is needed"
        );
    }

    #[wasm_bindgen_test]
    fn number_fields_use_the_table_limits() {
        assert_eq!(parse_field("dp", "16"), Ok(16));
        assert!(parse_field("dp", "eight")
            .unwrap_err()
            .contains("not a number"));
        assert_eq!(parse_field("kv-heads", "8"), Ok(8));
        assert_eq!(parse_field("overhead-mib", "2048"), Ok(2048));
        assert!(parse_field("overhead-mib", "1e9").is_err());
    }

    /// The landing example teaches sharding: DDP does not fit, ZeRO-3 does.
    #[wasm_bindgen_test]
    fn the_landing_example_needs_sharding() {
        use bitbudget_math::memory::estimate;
        let q = MemoryQuery::default();
        assert!(q.job.dp > 1);
        let cap = q.to_setup().gpu.unwrap().capacity_bytes;
        let total = |f: &dyn Fn(&mut MemoryQuery)| {
            let mut q = q.clone();
            f(&mut q);
            estimate(&q.to_setup()).unwrap().total
        };
        assert!(total(&|_| {}) > cap, "DDP does not fit");
        assert!(total(&|q| q.job.zero = ZeroStage(3)) <= cap, "ZeRO-3 fits");
    }

    #[wasm_bindgen_test]
    fn the_default_setup_is_valid() {
        assert!(bitbudget_math::memory::estimate(&MemoryQuery::default().to_setup()).is_ok());
    }
}
