//! Typed URL state of the Memory page. Parameter names match the CLI's options
//! (`?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&zero=3&dp=8&seq=4096&gpu=h100-80gb`).

use bitbudget_math::memory::{
    find_gpu, find_model, Convention, Dtype, LoraTargets, Mlp, Mode, ModelArch, ModelSpec, Offload,
    Optimizer, Recompute, Setup, ZeroStage,
};
use bitbudget_math::numbers::Units;

/// A custom architecture's numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CustomArch {
    /// Blocks.
    pub layers: u64,
    /// Hidden size.
    pub hidden: u64,
    /// Attention heads.
    pub heads: u64,
    /// KV heads.
    pub kv_heads: u64,
    /// FFN size.
    pub ffn: u64,
    /// Vocabulary.
    pub vocab: u64,
    /// MLP kind.
    pub mlp: Mlp,
}

impl Default for CustomArch {
    /// A 1.3B-parameter GPT-style model (24 layers, hidden 2048, 16 heads).
    fn default() -> Self {
        Self {
            layers: 24,
            hidden: 2048,
            heads: 16,
            kv_heads: 16,
            ffn: 8192,
            vocab: 50304,
            mlp: Mlp::Gelu,
        }
    }
}

/// Everything the Memory page's controls hold.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemoryQuery {
    /// A preset id, or `None` for the custom architecture.
    pub model: Option<String>,
    /// The custom architecture (used when `model` is `None`).
    pub custom: CustomArch,
    /// Mode.
    pub mode: Mode,
    /// Weight dtype.
    pub dtype: Dtype,
    /// Optimizer.
    pub optimizer: Optimizer,
    /// ZeRO stage.
    pub zero: ZeroStage,
    /// Data-parallel degree.
    pub dp: u64,
    /// Tensor-parallel degree.
    pub tp: u64,
    /// Pipeline-parallel degree.
    pub pp: u64,
    /// Sequence parallelism.
    pub sequence_parallel: bool,
    /// Micro-batch.
    pub batch: u64,
    /// Sequence length.
    pub seq: u64,
    /// Recomputation.
    pub recompute: Recompute,
    /// FlashAttention.
    pub flash_attention: bool,
    /// Offload.
    pub offload: Offload,
    /// KV-cache dtype.
    pub kv_dtype: Dtype,
    /// LoRA rank.
    pub lora_rank: u64,
    /// GPU preset id.
    pub gpu: String,
    /// CUDA context and allocator reserve, in MiB (the URL carries bytes, like the CLI's `--overhead`).
    pub overhead_mib: u64,
    /// Display units.
    pub units: Units,
}

impl Default for MemoryQuery {
    /// Llama 3 8B, full BF16 training with AdamW and FlashAttention, one H100 80GB, sequence 4096:
    /// it does not fit, which is where the explanation starts.
    fn default() -> Self {
        Self {
            model: Some("llama-3-8b".into()),
            custom: CustomArch::default(),
            mode: Mode::Train,
            dtype: Dtype::Bf16,
            optimizer: Optimizer::Adamw,
            zero: ZeroStage(0),
            dp: 1,
            tp: 1,
            pp: 1,
            sequence_parallel: false,
            batch: 1,
            seq: 4096,
            recompute: Recompute::None,
            flash_attention: true,
            offload: Offload::None,
            kv_dtype: Dtype::Bf16,
            lora_rank: 16,
            gpu: "h100-80gb".into(),
            overhead_mib: 1024,
            units: Units::Gb,
        }
    }
}

/// Upper bounds of the numeric fields (the math validates further).
pub const LIMITS: &[(&str, u64, u64)] = &[
    ("dp", 1, 1 << 20),
    ("tp", 1, 1024),
    ("pp", 1, 1024),
    ("batch", 1, 1 << 20),
    ("seq", 1, 1 << 24),
    ("lora-rank", 1, 65536),
    ("layers", 1, 100_000),
    ("hidden", 1, 1 << 20),
    ("heads", 1, 1 << 14),
    ("kv-heads", 1, 1 << 14),
    ("ffn", 1, 1 << 22),
    ("vocab", 1, 1 << 22),
    ("overhead-mib", 0, 1 << 20),
    ("overhead", 0, 1 << 40),
];

/// Parses a count for the field `key`: a whole number within its limits, or a message.
pub fn parse_field(key: &str, text: &str) -> Result<u64, String> {
    let (lo, hi) = LIMITS
        .iter()
        .find(|(k, _, _)| *k == key)
        .map(|(_, lo, hi)| (*lo, *hi))
        .unwrap_or((0, u64::MAX));
    let v: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("{key}: '{text}' is not a number"))?;
    if !v.is_finite() || v.fract() != 0.0 {
        return Err(format!("{key}: '{text}' is not a whole number"));
    }
    if v < lo as f64 || v > hi as f64 {
        return Err(format!("{key}: {text} is outside {lo}..={hi}"));
    }
    Ok(v as u64)
}

fn flag(value: &str) -> Result<bool, String> {
    match value {
        "1" | "true" | "yes" | "" => Ok(true),
        "0" | "false" | "no" => Ok(false),
        _ => Err(format!("'{value}' is not 0 or 1")),
    }
}

impl MemoryQuery {
    /// Applies one URL parameter. Returns `None` for keys this page does not know, `Some(Err)` with
    /// a note for a bad value (the field keeps its default).
    pub fn apply(&mut self, key: &str, value: &str) -> Option<Result<(), String>> {
        let with =
            |r: Result<(), String>| Some(r.map_err(|e| format!("{key}: {e}; keeping the default")));
        let c = &mut self.custom;
        match key {
            "model" if value == "custom" => {
                self.model = None;
                Some(Ok(()))
            }
            "model" => with(
                find_model(value)
                    .map(|_| self.model = Some(value.to_string()))
                    .ok_or_else(|| format!("unknown model '{value}'")),
            ),
            "gpu" => with(
                find_gpu(value)
                    .map(|_| self.gpu = value.to_string())
                    .ok_or_else(|| format!("unknown GPU '{value}'")),
            ),
            "mode" => with(value.parse().map(|v| self.mode = v)),
            "dtype" => with(value.parse().map(|v| self.dtype = v)),
            "optimizer" => with(value.parse().map(|v| self.optimizer = v)),
            "zero" => with(value.parse().map(|v| self.zero = v)),
            "recompute" => with(value.parse().map(|v| self.recompute = v)),
            "offload" => with(value.parse().map(|v| self.offload = v)),
            "kv-dtype" => with(value.parse().map(|v| self.kv_dtype = v)),
            "units" => with(value.parse().map(|v| self.units = v)),
            "flash-attention" => with(flag(value).map(|v| self.flash_attention = v)),
            "sequence-parallel" => with(flag(value).map(|v| self.sequence_parallel = v)),
            "mlp" => with(
                match value {
                    "gelu" => Ok(Mlp::Gelu),
                    "swiglu" => Ok(Mlp::Swiglu),
                    _ => Err(format!("unknown mlp '{value}'")),
                }
                .map(|m| c.mlp = m),
            ),
            "overhead" => with(
                parse_field(key, value).map(|bytes| self.overhead_mib = (bytes + (1 << 19)) >> 20),
            ),
            "dp" | "tp" | "pp" | "batch" | "seq" | "lora-rank" | "layers" | "hidden" | "heads"
            | "kv-heads" | "ffn" | "vocab" => {
                with(parse_field(key, value).map(|n| *self.count_mut(key) = n))
            }
            _ => None,
        }
    }

    /// The numeric field named `key` (one of [`LIMITS`]).
    pub fn count_mut(&mut self, key: &str) -> &mut u64 {
        match key {
            "dp" => &mut self.dp,
            "tp" => &mut self.tp,
            "pp" => &mut self.pp,
            "batch" => &mut self.batch,
            "seq" => &mut self.seq,
            "lora-rank" => &mut self.lora_rank,
            "layers" => &mut self.custom.layers,
            "hidden" => &mut self.custom.hidden,
            "heads" => &mut self.custom.heads,
            "kv-heads" => &mut self.custom.kv_heads,
            "ffn" => &mut self.custom.ffn,
            "overhead-mib" => &mut self.overhead_mib,
            _ => &mut self.custom.vocab,
        }
    }

    /// The numeric field named `key`.
    pub fn count(&self, key: &str) -> u64 {
        self.clone().count_mut(key).to_owned()
    }

    /// The query string (with `?`) that reproduces this view.
    pub fn to_query_string(&self, embed: bool) -> String {
        let mut s = format!(
            "?tab=memory&model={}",
            self.model.as_deref().unwrap_or("custom")
        );
        if self.model.is_none() {
            let c = &self.custom;
            let mlp = if c.mlp == Mlp::Swiglu {
                "swiglu"
            } else {
                "gelu"
            };
            s += &format!(
                "&layers={}&hidden={}&heads={}&kv-heads={}&ffn={}&vocab={}&mlp={mlp}",
                c.layers, c.hidden, c.heads, c.kv_heads, c.ffn, c.vocab
            );
        }
        s += &format!(
            "&mode={}&dtype={}&optimizer={}&zero={}&dp={}&tp={}&pp={}&batch={}&seq={}&recompute={}&offload={}&kv-dtype={}&lora-rank={}&gpu={}&units={}",
            self.mode, self.dtype, self.optimizer, self.zero, self.dp, self.tp, self.pp, self.batch, self.seq, self.recompute, self.offload, self.kv_dtype, self.lora_rank, self.gpu, self.units
        );
        s += &format!(
            "&flash-attention={}&sequence-parallel={}",
            u8::from(self.flash_attention),
            u8::from(self.sequence_parallel)
        );
        if embed {
            s += "&embed=1";
        }
        s
    }

    /// The math crate's setup for this query (the GPU preset included).
    pub fn to_setup(&self) -> Setup {
        let model = match self.model.as_deref().and_then(find_model) {
            Some(m) => ModelSpec::Arch {
                name: m.id.into(),
                arch: Box::new(m.arch),
            },
            None => {
                let c = &self.custom;
                ModelSpec::Arch {
                    name: "custom".into(),
                    arch: Box::new(ModelArch::custom(
                        c.layers, c.hidden, c.heads, c.kv_heads, c.ffn, c.vocab, c.mlp,
                    )),
                }
            }
        };
        Setup {
            mode: self.mode,
            dtype: self.dtype,
            optimizer: self.optimizer,
            zero: self.zero,
            dp: self.dp,
            tp: self.tp,
            pp: self.pp,
            sequence_parallel: self.sequence_parallel,
            batch: self.batch,
            seq: self.seq,
            recompute: self.recompute,
            flash_attention: self.flash_attention,
            offload: self.offload,
            kv_dtype: self.kv_dtype,
            lora_rank: self.lora_rank,
            lora_targets: LoraTargets::default(),
            gpu: find_gpu(&self.gpu),
            convention: Convention::Bitbudget,
            overhead_bytes: self.overhead_mib << 20,
            units: self.units,
            ..Setup::new(model)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_field_round_trips_through_the_url() {
        let mut q = MemoryQuery {
            model: None,
            dp: 8,
            zero: ZeroStage(3),
            flash_attention: false,
            sequence_parallel: true,
            units: Units::Gib,
            ..Default::default()
        };
        q.custom.mlp = Mlp::Swiglu;
        q.custom.layers = 7;
        let mut back = MemoryQuery::default();
        let text = q.to_query_string(false);
        for pair in text.trim_start_matches('?').split('&') {
            let (k, v) = pair.split_once('=').unwrap();
            if k != "tab" {
                assert_eq!(back.apply(k, v), Some(Ok(())), "{k}={v}");
            }
        }
        assert_eq!(back, q);
    }

    #[test]
    fn bad_values_keep_defaults_and_say_so() {
        let mut q = MemoryQuery::default();
        assert!(q.apply("dp", "0").unwrap().unwrap_err().contains("outside"));
        assert!(q.apply("seq", "1e400").unwrap().is_err());
        assert!(q.apply("seq", "NaN").unwrap().is_err());
        assert!(q
            .apply("model", "llama-9")
            .unwrap()
            .unwrap_err()
            .contains("unknown model"));
        assert!(q.apply("zero", "7").unwrap().is_err());
        assert_eq!(q.apply("nonsense", "1"), None);
        assert_eq!(q, MemoryQuery::default());
    }

    #[test]
    fn the_default_setup_is_valid() {
        assert!(bitbudget_math::memory::estimate(&MemoryQuery::default().to_setup()).is_ok());
    }
}
