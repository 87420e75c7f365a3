//! The Serve page's URL state: engine, model (a preset, or a `config.json`'s architecture as one
//! `arch` text), GPU, tensor parallelism, checkpoint and KV types,
//! and each engine knob (unset: the engine's default). URL keys are the CLI's flags without the
//! engine prefixes (`tp`, `pp`, `dp`, `ep`, `util`, `len`, `seqs`, `tokens`, `block`, `eager`,
//! `prefix`, `conc`,
//! `prompt`, `ngl`, `cpu_moe`, `ot` (llama.cpp's `-ot` text), `fa` (`0`: flash attention off);
//! `bw` and `fe` the shares of peak bandwidth and FLOP/s). A GGUF file is not in the link: it
//! stays in the page ([`super::ServeState::file`]).

use crate::ui::shell::query::{flag, PageQuery};
use crate::ui::shell::url::{encode_component, Tab};
use bitbudget_math::memory::model::arch_text::arch_from_text;
use bitbudget_math::memory::{find_gpu, find_model};
use bitbudget_math::serve::setup::{DEFAULT_PROMPT_TOKENS, TOKEN_LIMIT, TP_LIMIT};
use bitbudget_math::serve::tensor_placement::parse_overrides;
use bitbudget_math::serve::{Checkpoint, Engine, KvDtype, ServeSetup};

/// State of the Serve page.
#[derive(Clone, Debug, PartialEq)]
pub struct ServeQuery {
    /// The engine.
    pub engine: Engine,
    /// Model preset id.
    pub model: String,
    /// A model read from a `config.json`, as [`arch_to_text`] writes it (`None`: the preset). It
    /// stands in for the preset while it is set; choosing a preset clears it.
    pub arch: Option<String>,
    /// GPU preset id.
    pub gpu: String,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Pipeline stages.
    pub pp: u64,
    /// Data-parallel replicas.
    pub dp: u64,
    /// Expert parallelism (MoE).
    pub ep: bool,
    /// Checkpoint format.
    pub dtype: Checkpoint,
    /// KV cache type.
    pub kv: KvDtype,
    /// The engine's memory fraction (`None`: its default).
    pub util: Option<f64>,
    /// `max_model_len` (`None`: the model's context; llama.cpp fits it).
    pub len: Option<u64>,
    /// `max_num_seqs`.
    pub seqs: Option<u64>,
    /// `max_num_batched_tokens`.
    pub tokens: Option<u64>,
    /// No CUDA graphs.
    pub eager: bool,
    /// Shared prefix share, 0 to < 1.
    pub prefix: f64,
    /// Concurrency for the speed figures (`None`: as many as fit).
    pub conc: Option<u64>,
    /// Prompt tokens.
    pub prompt: u64,
    /// llama.cpp `n_gpu_layers` (`None`: as many as fit).
    pub ngl: Option<u64>,
    /// llama.cpp `--n-cpu-moe`.
    pub cpu_moe: u64,
    /// llama.cpp `-ot` text (`PATTERN=BUFFER`, comma-separated; empty: none).
    pub ot: String,
    /// llama.cpp flash attention (`--flash-attn`; on by default).
    pub fa: bool,
    /// Share of peak memory bandwidth decode reaches (`None`: the engine's default).
    pub bw: Option<f64>,
    /// Share of peak tensor FLOP/s prefill reaches (`None`: the default).
    pub fe: Option<f64>,
}

impl Default for ServeQuery {
    fn default() -> Self {
        Self {
            engine: Engine::Vllm,
            model: "llama-3.1-8b".into(),
            arch: None,
            gpu: "h100-80gb".into(),
            tp: 1,
            pp: 1,
            dp: 1,
            ep: false,
            dtype: Checkpoint::Bf16,
            kv: KvDtype::Bf16,
            util: None,
            len: Some(8192),
            seqs: None,
            tokens: None,
            eager: false,
            prefix: 0.0,
            conc: None,
            prompt: DEFAULT_PROMPT_TOKENS,
            ngl: None,
            cpu_moe: 0,
            ot: String::new(),
            fa: true,
            bw: None,
            fe: None,
        }
    }
}

impl ServeQuery {
    /// The math crate's setup, or why the model or GPU is not known.
    pub fn setup(&self) -> Result<ServeSetup, String> {
        let (name, arch) = match &self.arch {
            Some(text) => arch_from_text(text)?,
            None => {
                let model = find_model(&self.model)
                    .ok_or_else(|| format!("no model preset '{}'", self.model))?;
                (self.model.clone(), model.arch)
            }
        };
        let gpu = find_gpu(&self.gpu).ok_or_else(|| format!("no GPU preset '{}'", self.gpu))?;
        let mut s = ServeSetup::new(self.engine, &name, arch, gpu);
        s.tp = self.tp;
        s.pp = self.pp;
        s.dp = self.dp;
        s.expert_parallel = self.ep;
        s.checkpoint = self.dtype;
        s.kv_dtype = self.kv;
        s.memory_fraction = self.util;
        s.max_model_len = self.len;
        s.max_num_seqs = self.seqs;
        s.max_num_batched_tokens = self.tokens;
        s.enforce_eager = self.eager;
        s.prefix_share = self.prefix;
        s.concurrency = self.conc;
        s.prompt_tokens = self.prompt;
        s.gpu_layers = self.ngl;
        s.cpu_moe_layers = self.cpu_moe;
        s.tensor_overrides = self.ot.clone();
        s.flash_attention = self.fa;
        s.bandwidth_efficiency = self.bw;
        s.flops_efficiency = self.fe;
        Ok(s)
    }

    /// The query string (with `?`) that reproduces this view: the defaults left out.
    pub fn to_query_string(&self, embed: bool) -> String {
        let d = ServeQuery::default();
        let mut s = format!(
            "?tab=serve&engine={}&model={}&gpu={}",
            self.engine, self.model, self.gpu
        );
        let mut put = |k: &str, v: String, default: String| {
            if v != default {
                s.push_str(&format!("&{k}={v}"));
            }
        };
        let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
        put("arch", self.arch.clone().unwrap_or_default(), String::new());
        put("tp", self.tp.to_string(), d.tp.to_string());
        put("pp", self.pp.to_string(), "1".into());
        put("dp", self.dp.to_string(), "1".into());
        put("ep", (self.ep as u8).to_string(), "0".into());
        put("dtype", self.dtype.to_string(), d.dtype.to_string());
        put("kv", self.kv.to_string(), d.kv.to_string());
        put(
            "util",
            self.util.map_or(String::new(), |u| u.to_string()),
            String::new(),
        );
        put("len", opt(self.len), String::new());
        put("seqs", opt(self.seqs), String::new());
        put("tokens", opt(self.tokens), String::new());
        put("eager", (self.eager as u8).to_string(), "0".into());
        put("prefix", self.prefix.to_string(), "0".into());
        put("conc", opt(self.conc), String::new());
        put("prompt", self.prompt.to_string(), d.prompt.to_string());
        put("ngl", opt(self.ngl), String::new());
        put("cpu_moe", self.cpu_moe.to_string(), "0".into());
        put("ot", encode_component(&self.ot), String::new());
        put("fa", (self.fa as u8).to_string(), "1".into());
        put(
            "bw",
            self.bw.map_or(String::new(), |v| v.to_string()),
            String::new(),
        );
        put(
            "fe",
            self.fe.map_or(String::new(), |v| v.to_string()),
            String::new(),
        );
        if embed {
            s.push_str("&embed=1");
        }
        s
    }
}

/// A whole number from 1 to `limit` ("8k", "32K" and scientific notation accepted), or why not.
pub fn parse_count(text: &str, limit: u64) -> Result<u64, String> {
    let t = text.trim().to_ascii_lowercase();
    let (digits, scale) = match t.strip_suffix('k') {
        Some(d) => (d, 1024.0),
        None => (t.as_str(), 1.0),
    };
    let v: f64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    let v = v * scale;
    if !v.is_finite() || v.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number"));
    }
    if v < 1.0 {
        return Err("must be at least 1".into());
    }
    if v > limit as f64 {
        return Err(format!("{text} is more than the {limit} accepted"));
    }
    Ok(v as u64)
}

/// A share in (0, 1] (or [0, 1) with `zero_ok`), or why not.
pub fn parse_share(text: &str, zero_ok: bool) -> Result<f64, String> {
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    let ok = if zero_ok {
        (0.0..1.0).contains(&v)
    } else {
        v > 0.0 && v <= 1.0
    };
    if ok {
        Ok(v)
    } else if zero_ok {
        Err(format!("{v} is not at least 0 and below 1"))
    } else {
        Err(format!("{v} is not above 0 and at most 1"))
    }
}

impl PageQuery for ServeQuery {
    const TAB: Tab = Tab::Serve;

    fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        fn set<T: std::fmt::Display>(
            slot: &mut T,
            key: &str,
            r: Result<T, String>,
        ) -> Result<(), String> {
            match r {
                Ok(v) => {
                    *slot = v;
                    Ok(())
                }
                Err(e) => Err(format!("{key}: {e}; keeping {slot}")),
            }
        }
        fn set_opt<T>(
            slot: &mut Option<T>,
            key: &str,
            r: Result<Option<T>, String>,
            default: &str,
        ) -> Result<(), String> {
            r.map(|v| *slot = v)
                .map_err(|e| format!("{key}: {e}; keeping {default}"))
        }
        let empty = value.trim().is_empty();
        let optional = |limit: u64| -> Result<Option<u64>, String> {
            if empty {
                Ok(None)
            } else {
                parse_count(value, limit).map(Some)
            }
        };
        Some(match key {
            "engine" => set(&mut self.engine, key, value.parse()),
            "model" => match find_model(value) {
                Some(_) => set(&mut self.model, key, Ok(value.to_string())),
                None => Err(format!(
                    "model: no preset '{value}'; keeping {}",
                    self.model
                )),
            },
            "arch" => match arch_from_text(value) {
                Ok(_) => set_opt(&mut self.arch, key, Ok(Some(value.to_string())), ""),
                Err(e) => Err(format!("arch: {e}; keeping the model preset")),
            },
            "gpu" => match find_gpu(value) {
                Some(_) => set(&mut self.gpu, key, Ok(value.to_string())),
                None => Err(format!("gpu: no preset '{value}'; keeping {}", self.gpu)),
            },
            "tp" => set(&mut self.tp, key, parse_count(value, TP_LIMIT)),
            "pp" => set(&mut self.pp, key, parse_count(value, TP_LIMIT)),
            "dp" => set(&mut self.dp, key, parse_count(value, TP_LIMIT)),
            "dtype" => set(&mut self.dtype, key, value.parse()),
            "kv" => set(&mut self.kv, key, value.parse()),
            "util" => {
                let r = if empty {
                    Ok(None)
                } else {
                    parse_share(value, false).map(Some)
                };
                set_opt(&mut self.util, key, r, "the engine's default")
            }
            "len" => set_opt(
                &mut self.len,
                key,
                optional(TOKEN_LIMIT),
                "the model's context",
            ),
            "seqs" => set_opt(
                &mut self.seqs,
                key,
                optional(TOKEN_LIMIT),
                "the engine's default",
            ),
            "tokens" => set_opt(
                &mut self.tokens,
                key,
                optional(TOKEN_LIMIT),
                "the engine's default",
            ),
            "conc" => set_opt(&mut self.conc, key, optional(TOKEN_LIMIT), "as many as fit"),
            "ngl" => set_opt(&mut self.ngl, key, optional(TOKEN_LIMIT), "as many as fit"),
            "prompt" => set(&mut self.prompt, key, parse_count(value, TOKEN_LIMIT)),
            "cpu_moe" => {
                let r = if value.trim() == "0" {
                    Ok(0)
                } else {
                    parse_count(value, TOKEN_LIMIT)
                };
                set(&mut self.cpu_moe, key, r)
            }
            "bw" | "fe" => {
                let r = if empty {
                    Ok(None)
                } else {
                    parse_share(value, false).map(Some)
                };
                let slot = if key == "bw" {
                    &mut self.bw
                } else {
                    &mut self.fe
                };
                set_opt(slot, key, r, "the default")
            }
            "prefix" => set(&mut self.prefix, key, parse_share(value, true)),
            "eager" | "fa" | "ep" => {
                let mut notes = Vec::new();
                let on = flag(key, value, &mut notes);
                let slot = match key {
                    "eager" => &mut self.eager,
                    "ep" => &mut self.ep,
                    _ => &mut self.fa,
                };
                match notes.pop() {
                    Some(e) => Err(e),
                    None => {
                        *slot = on;
                        Ok(())
                    }
                }
            }
            "ot" => match parse_overrides(value) {
                Ok(_) => set(&mut self.ot, key, Ok(value.trim().to_string())),
                Err(e) => Err(format!("ot: {e}; keeping no override")),
            },
            _ => return None,
        })
    }

    /// Knobs the link's engine does not take go back to their defaults, each with a note, so
    /// that no field the page hides for that engine can refuse the answer.
    fn finish(&mut self, _keys: &[String], notes: &mut Vec<String>) {
        let mut reset = |what: &str, changed: bool| {
            if changed {
                notes.push(format!(
                    "{what} does not apply to {}: using its default",
                    self.engine.label()
                ));
            }
        };
        if self.engine == Engine::LlamaCpp {
            let parallel = self.pp != 1 || self.dp != 1 || self.ep;
            reset("pipeline, data or expert parallelism", parallel);
            (self.pp, self.dp, self.ep) = (1, 1, false);
        } else {
            reset("override-tensor (ot)", !self.ot.is_empty());
            reset("flash attention off (fa=0)", !self.fa);
            self.ot.clear();
            self.fa = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ui::shell::query::parse_page_query;
    use wasm_bindgen_test::wasm_bindgen_test;

    /// A Memory-page serving link (`mode=inference`) opens this page with everything it carries
    /// that the engines serve, and nothing refused.
    #[wasm_bindgen_test]
    fn a_memory_serving_link_opens_here_with_its_setup() {
        use crate::ui::components::serve_link::serve_query;
        use crate::ui::pages::memory::query::MemoryQuery;
        use crate::ui::shell::query::PageQuery;
        let open = |memory: &str| {
            let (_, m) = parse_page_query::<MemoryQuery>(memory);
            let target = m.moved_to().expect("serving moves to the Serve page");
            let (shell, q) = parse_page_query::<ServeQuery>(&target);
            assert!(
                shell.notes.is_empty(),
                "{memory} → {target}: {:?}",
                shell.notes
            );
            assert_eq!(shell.tab, Tab::Serve);
            q
        };
        let q = open("?model=llama-3-70b&mode=inference&gpu=a100-80gb&tp=2&pp=2&seq=512&batch=16&dtype=int4&kv-dtype=fp8");
        assert_eq!(q.pp, 2);
        assert_eq!(
            (q.model.as_str(), q.gpu.as_str(), q.tp, q.dtype, q.kv),
            (
                "llama-3-70b",
                "a100-80gb",
                2,
                Checkpoint::Int4,
                KvDtype::Fp8
            )
        );
        assert_eq!((q.len, q.conc, q.prompt), (Some(512), Some(16), 512));
        assert!(q
            .setup()
            .is_ok_and(|s| bitbudget_math::serve::serve(&s).is_ok()));
        let q =
            open("?model=llama-3-70b&mode=inference&dtype=q3_k_m&kv-dtype=int4&tp=2&gpu=rtx-4090");
        assert_eq!(
            (q.engine, q.dtype, q.kv, q.tp),
            (Engine::LlamaCpp, Checkpoint::Q3KM, KvDtype::Q40, 1)
        );
        assert!(q
            .setup()
            .is_ok_and(|s| bitbudget_math::serve::serve(&s).is_ok()));
        let q = open("?params=8000000000&mode=inference&dtype=fp32");
        assert_eq!(
            (q.model.as_str(), q.dtype),
            ("llama-3-8b", Checkpoint::Bf16)
        );
        let q = open("?model=custom&layers=12&hidden=1024&heads=16&mode=inference");
        assert!(q.arch.is_some());
        let (_, training) = parse_page_query::<MemoryQuery>("?model=llama-3-8b&mode=lora");
        assert_eq!(training.moved_to(), None);
        assert!(
            serve_query(&bitbudget_math::serve::from_memory::serving_job(
                &training.job
            ))
            .starts_with("?tab=serve&model=llama-3-8b")
        );
    }

    #[wasm_bindgen_test]
    fn a_link_round_trips_and_leaves_defaults_out() {
        let q = ServeQuery {
            engine: Engine::Sglang,
            tp: 2,
            kv: KvDtype::Fp8,
            util: Some(0.85),
            len: Some(32768),
            ..ServeQuery::default()
        };
        let text = q.to_query_string(false);
        assert_eq!(text, "?tab=serve&engine=sglang&model=llama-3.1-8b&gpu=h100-80gb&tp=2&kv=fp8&util=0.85&len=32768");
        let (shell, back) = parse_page_query::<ServeQuery>(&text);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        assert_eq!(back, q);
    }

    #[wasm_bindgen_test]
    fn bad_values_leave_a_note_and_keep_the_last_good_state() {
        let (shell, q) = parse_page_query::<ServeQuery>(
            "?tab=serve&util=1.5&len=0&tp=NaN&model=gpt-9&prefix=1&len=1e15&kv=q8",
        );
        assert_eq!(q, ServeQuery::default());
        assert_eq!(shell.notes.len(), 7, "{:?}", shell.notes);
        assert!(
            shell.notes[0].starts_with("util: 1.5 is not above 0 and at most 1"),
            "{:?}",
            shell.notes
        );
    }

    #[wasm_bindgen_test]
    fn a_config_s_architecture_travels_in_the_link() {
        use bitbudget_math::memory::model::arch_text::arch_to_text;
        let arch = find_model("qwen3-30b-a3b").unwrap().arch;
        let q = ServeQuery {
            arch: Some(arch_to_text("qwen3_moe", &arch)),
            dtype: Checkpoint::Fp8,
            ..ServeQuery::default()
        };
        let (shell, back) = parse_page_query::<ServeQuery>(&q.to_query_string(false));
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        assert_eq!(back, q);
        let setup = back.setup().unwrap();
        assert_eq!(setup.arch.params(), arch.params());
        let (shell, bad) = parse_page_query::<ServeQuery>("?tab=serve&arch=qwen.L0");
        assert_eq!(bad.arch, None);
        assert!(shell.notes[0].starts_with("arch: "), "{:?}", shell.notes);
    }

    #[wasm_bindgen_test]
    fn llama_cpp_overrides_and_flash_attention_travel_in_the_link() {
        let q = ServeQuery {
            engine: Engine::LlamaCpp,
            dtype: Checkpoint::Q4KM,
            ot: r"blk\.(1[0-9])\.ffn_.*_exps=CPU,exps=CUDA0".into(),
            fa: false,
            ..ServeQuery::default()
        };
        let text = q.to_query_string(false);
        assert!(
            text.contains("&ot=blk%5C.%281") && text.ends_with("&fa=0"),
            "{text}"
        );
        let (shell, back) = parse_page_query::<ServeQuery>(&text);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        assert_eq!(back, q);
        let setup = back.setup().unwrap();
        assert_eq!(setup.tensor_overrides, q.ot);
        assert!(!setup.flash_attention);
        let (shell, bad) = parse_page_query::<ServeQuery>("?tab=serve&ot=(exps=CPU&fa=maybe");
        assert_eq!((bad.ot.as_str(), bad.fa), ("", true));
        assert_eq!(shell.notes.len(), 2, "{:?}", shell.notes);
        assert!(shell.notes[0].contains("never closed"), "{:?}", shell.notes);
    }

    #[wasm_bindgen_test]
    fn pipeline_data_and_expert_parallelism_travel_in_the_link() {
        let q = ServeQuery {
            model: "qwen3-30b-a3b".into(),
            tp: 2,
            pp: 2,
            dp: 4,
            ep: true,
            ..ServeQuery::default()
        };
        let text = q.to_query_string(false);
        assert!(text.contains("&tp=2&pp=2&dp=4&ep=1"), "{text}");
        let (shell, back) = parse_page_query::<ServeQuery>(&text);
        assert!(shell.notes.is_empty(), "{:?}", shell.notes);
        assert_eq!(back, q);
        let s = back.setup().unwrap();
        assert_eq!((s.gpus(), s.expert_parallel), (16, true));
        let (shell, bad) = parse_page_query::<ServeQuery>("?tab=serve&pp=0&dp=1e15&ep=2");
        assert_eq!((bad.pp, bad.dp, bad.ep), (1, 1, false));
        assert_eq!(shell.notes.len(), 3, "{:?}", shell.notes);
    }

    #[wasm_bindgen_test]
    fn a_link_s_knobs_for_another_engine_go_back_to_their_defaults_with_a_note() {
        let (shell, q) = parse_page_query::<ServeQuery>("?tab=serve&engine=llama.cpp&pp=2&ep=1");
        assert_eq!((q.pp, q.ep), (1, false));
        assert!(
            shell.notes[0].contains("does not apply to llama.cpp"),
            "{:?}",
            shell.notes
        );
        let (shell, q) = parse_page_query::<ServeQuery>("?tab=serve&ot=exps%3DCPU&fa=0");
        assert_eq!((q.ot.as_str(), q.fa), ("", true));
        assert_eq!(shell.notes.len(), 2, "{:?}", shell.notes);
        assert!(q
            .setup()
            .and_then(|s| bitbudget_math::serve::serve(&s).map_err(|e| e.to_string()))
            .is_ok());
    }

    #[wasm_bindgen_test]
    fn counts_take_k_suffixes() {
        assert_eq!(parse_count("8k", TOKEN_LIMIT), Ok(8192));
        assert_eq!(parse_count("1e3", TOKEN_LIMIT), Ok(1000));
        assert!(parse_count("0.5", TOKEN_LIMIT).is_err());
    }
}
