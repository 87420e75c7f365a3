//! llama.cpp's file types as weight formats: which GGML type each tensor of a model gets, and
//! the exact bytes.
//!
//! The rules are llama.cpp's `llama-quantize` without an importance matrix, read from
//! `src/llama-quant.cpp` of the llama.cpp that llama-cpp-python 0.3.36 vendors (fetched by
//! `scripts/build_llama_reference.py`); no code is copied:
//! - `llama_ftype_get_default_type`: each file type's main type ([`Dtype::gguf_type`]).
//! - `tensor_allows_quantization`: only tensors of 2 or more dimensions whose name ends in
//!   `weight` are quantized, never `*_norm.weight`, `ffn_gate_inp.weight` (the MoE router) or
//!   `position_embd.weight`; the others keep the converter's type, which is F32 for 1-D tensors,
//!   norms, the router and learned positions (`conversion/base.py`) and F16 otherwise.
//! - `llama_tensor_get_type_impl`: the output head (and a tied embedding) becomes Q6_K unless the
//!   main type is Q8_0 (Q8_0 for Falcon or rows that are not whole blocks); attention V
//!   (and fused QKV, MLA's KV-B) and FFN down get more bits in some blocks (`use_more_bits`: the
//!   first and last eighth and every third block between); 8-expert models keep attention K
//!   and V in Q8_0; Falcon has rules of its own; "70B" models (llama with 80 blocks and
//!   grouped-query attention, qwen2 with 80 blocks: `src/models/llama.cpp`, `qwen2.cpp`) get
//!   Q5_K attention V instead of Q3_K or Q4_K.
//! - `tensor_type_fallback`: a row that is not a whole number of 256-value blocks falls back to
//!   a 32-value type (Q4_K → Q5_0, Q5_K → Q5_1, Q6_K → Q8_0, Q2_K/Q3_K → Q4_0, IQ4_XS → IQ4_NL),
//!   and to F16 if that does not fit either.
//!
//! NVFP4 is a GGML type but not a file type `llama-quantize` makes (`llama_ftype_get_default_type`
//! has no case for `LLAMA_FTYPE_MOSTLY_NVFP4`); the IQ1/IQ2/IQ3 types need an importance matrix;
//! neither is offered.

use crate::gguf::TensorType;
use crate::memory::model::arch::ModelArch;
use crate::memory::options::Dtype;
use crate::memory::setup::{ModelSpec, Setup};
use crate::memory::states::gguf_tensors::{tensors, GgufArch, TensorShape};
use crate::numbers::format_count;
use serde::Serialize;

/// The model facts the rules read (llama.cpp's `hparams` and `model.type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hparams {
    /// llama.cpp architecture.
    pub arch: GgufArch,
    /// Blocks (`n_layer`).
    pub layers: u64,
    /// Query heads.
    pub heads: u64,
    /// KV heads.
    pub kv_heads: u64,
    /// Experts per MoE block (1 when dense).
    pub experts: u64,
}

impl Hparams {
    /// The facts of `arch` laid out as `ga`.
    pub fn of(arch: &ModelArch, ga: GgufArch) -> Hparams {
        Hparams {
            arch: ga,
            layers: arch.layers,
            heads: arch.heads,
            kv_heads: arch.kv_heads,
            experts: arch.experts,
        }
    }

    /// `n_gqa()`: query heads per KV head (0 without KV heads).
    fn gqa(&self) -> u64 {
        self.heads.checked_div(self.kv_heads).unwrap_or(0)
    }

    /// llama.cpp's `LLM_TYPE_70B`, the only model type the rules read.
    fn is_70b(&self) -> bool {
        self.layers == 80
            && match self.arch {
                GgufArch::Llama => self.heads != self.kv_heads,
                GgufArch::Qwen2 => true,
                _ => false,
            }
    }
}

/// One tensor with the type llama.cpp gives it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TypedTensor {
    /// llama.cpp's name.
    pub name: String,
    /// Dimensions, row length first.
    pub dims: Vec<u64>,
    /// Storage type.
    #[serde(rename = "type", serialize_with = "type_name")]
    pub ty: TensorType,
    /// Bytes of its data.
    pub bytes: u64,
}

impl TypedTensor {
    /// Every tensor a parsed GGUF header lists, in file order.
    pub fn all_in(g: &crate::gguf::Gguf) -> Vec<TypedTensor> {
        g.tensors
            .iter()
            .map(|t| TypedTensor {
                name: t.name.clone(),
                dims: t.dims.clone(),
                ty: t.ty,
                bytes: t.bytes,
            })
            .collect()
    }
}

fn type_name<S: serde::Serializer>(t: &TensorType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(t.name())
}

/// Tensor categories of `tensor_get_category`, by name.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Category {
    Output,
    TokenEmbd,
    AttnV,
    AttnK,
    AttnOutput,
    FfnDown,
    Other,
}

fn category(name: &str) -> Category {
    if name == "output.weight" {
        Category::Output
    } else if name == "token_embd.weight" || name == "per_layer_token_embd.weight" {
        Category::TokenEmbd
    } else if ["attn_qkv.weight", "attn_kv_b.weight", "attn_v.weight"]
        .iter()
        .any(|p| name.contains(p))
    {
        Category::AttnV
    } else if name.contains("attn_k.weight") {
        Category::AttnK
    } else if name.contains("attn_output.weight") {
        Category::AttnOutput
    } else if name.contains("ffn_down") {
        Category::FfnDown
    } else {
        Category::Other
    }
}

/// Whether llama-quantize quantizes the tensor at all, and the type it keeps when not.
fn kept_type(t: &TensorShape) -> Option<TensorType> {
    let n = &t.name;
    let float32 = t.dims.len() < 2
        || n.ends_with("_norm.weight")
        || n.contains("ffn_gate_inp.weight")
        || n == "position_embd.weight";
    if float32 {
        Some(TensorType::F32)
    } else if !n.ends_with("weight") {
        Some(TensorType::F16)
    } else {
        None
    }
}

/// `use_more_bits`: the first and last eighth of `n` blocks and every third block between.
fn more_bits(i: u64, n: u64) -> bool {
    // The first test keeps `i - n / 8` from underflowing.
    i < n / 8 || i >= 7 * n / 8 || (i - n / 8) % 3 == 2
}

/// The block index in a `blk.N.` name (0 for tensors outside the blocks).
fn layer_of(name: &str) -> u64 {
    name.strip_prefix("blk.")
        .and_then(|r| r.split('.').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// The type `llama_tensor_get_type_impl` picks for a quantized tensor of category `cat`, before
/// the row-length fallback. `wv` is this tensor's index among the attention-V-like tensors and
/// `n_wv` their number.
fn pick(
    d: Dtype,
    hp: &Hparams,
    cat: Category,
    t: &TensorShape,
    tied: bool,
    wv: (u64, u64),
) -> TensorType {
    use Dtype as F;
    use TensorType as T;
    let main = d.gguf_type().unwrap_or(T::F16);
    let falcon = hp.arch == GgufArch::Falcon;
    let (i, n) = (layer_of(&t.name), hp.layers);
    match cat {
        Category::Output | Category::TokenEmbd if cat == Category::Output || tied => {
            let row = t.dims.first().copied().unwrap_or(0);
            if falcon || row % main.block_values() != 0 || main == T::Q8_0 {
                T::Q8_0
            } else {
                T::Q6_K
            }
        }
        Category::AttnV => {
            let (i_wv, n_wv) = wv;
            let mut ty = match d {
                F::Q2K if hp.gqa() >= 4 => T::Q4_K,
                F::Q2K => T::Q3_K,
                F::Q3KM if i_wv < 2 => T::Q5_K,
                F::Q3KM => T::Q4_K,
                F::Q3KL => T::Q5_K,
                F::Iq4Nl | F::Iq4Xs if hp.gqa() >= 4 => T::Q5_K,
                F::Q4KM | F::Q5KM if more_bits(i_wv, n_wv) => T::Q6_K,
                F::Q4KS if i_wv < 4 => T::Q5_K,
                _ => main,
            };
            if hp.is_70b() && matches!(ty, T::Q3_K | T::Q4_K) {
                ty = T::Q5_K;
            }
            if hp.experts == 8 {
                ty = T::Q8_0;
            }
            ty
        }
        Category::AttnK if hp.experts == 8 => T::Q8_0,
        Category::FfnDown => match d {
            F::Q2K => T::Q3_K,
            F::Q3KM if i < n / 16 => T::Q5_K,
            F::Q3KM if !falcon || more_bits(i, n) => T::Q4_K,
            F::Q3KL if falcon => T::Q4_K,
            F::Q3KL => T::Q5_K,
            F::Q4KM if falcon && i < n / 16 => T::Q6_K,
            F::Q4KM if falcon && more_bits(i, n) => T::Q5_K,
            F::Q4KM if !falcon && more_bits(i, n) => T::Q6_K,
            F::Q4KM => main,
            F::Iq4Nl | F::Iq4Xs if i < n / 8 => T::Q5_K,
            F::Q5KM if more_bits(i, n) => T::Q6_K,
            F::Q4KS if !falcon && i < n / 8 => T::Q5_K,
            _ => main,
        },
        Category::AttnOutput if falcon => match d {
            F::Q3KL => T::Q4_K,
            _ => main,
        },
        Category::AttnOutput if hp.experts == 8 => match d {
            F::Q2K | F::Q3KS | F::Q3KM | F::Iq4Nl | F::Q4KS | F::Q4KM | F::Iq4Xs => T::Q5_K,
            _ => main,
        },
        Category::AttnOutput => match d {
            F::Q2K => T::Q3_K,
            F::Q3KM => T::Q4_K,
            F::Q3KL => T::Q5_K,
            _ => main,
        },
        _ => main,
    }
}

/// `tensor_type_fallback`: a type whose blocks fit rows of `row` values.
fn fallback(ty: TensorType, row: u64) -> TensorType {
    use TensorType as T;
    if row % ty.block_values() == 0 {
        return ty;
    }
    let smaller = match ty {
        T::Q2_K | T::Q3_K => T::Q4_0,
        T::Q4_K => T::Q5_0,
        T::Q5_K => T::Q5_1,
        T::Q6_K => T::Q8_0,
        T::IQ4_XS => T::IQ4_NL,
        other => other,
    };
    if row % smaller.block_values() == 0 {
        smaller
    } else {
        T::F16
    }
}

/// Every tensor of `list` with the type llama-quantize gives it for file type `d`, and its bytes.
/// `None` when `d` is not a llama.cpp file type.
pub fn assign(list: &[TensorShape], d: Dtype, hp: &Hparams) -> Option<Vec<TypedTensor>> {
    d.gguf_type()?;
    let tied = !list.iter().any(|t| t.name == "output.weight");
    let n_wv = list
        .iter()
        .filter(|t| category(&t.name) == Category::AttnV)
        .count() as u64;
    let mut i_wv = 0;
    let typed = list
        .iter()
        .map(|t| {
            let ty = kept_type(t).unwrap_or_else(|| {
                let cat = category(&t.name);
                let ty = pick(d, hp, cat, t, tied, (i_wv, n_wv));
                i_wv += u64::from(cat == Category::AttnV);
                fallback(ty, t.dims.first().copied().unwrap_or(1))
            });
            TypedTensor {
                name: t.name.clone(),
                dims: t.dims.clone(),
                ty,
                bytes: ty.bytes_for(t.elements()).unwrap_or(u64::MAX),
            }
        })
        .collect();
    Some(typed)
}

/// The typed tensors of `arch` (laid out as `ga`) in file type `d`; `None` for plain dtypes.
pub fn typed_tensors(arch: &ModelArch, ga: GgufArch, d: Dtype) -> Option<Vec<TypedTensor>> {
    assign(&tensors(arch, ga), d, &Hparams::of(arch, ga))
}

/// Exact bytes of every tensor of `arch` in file type `d` (saturating); `None` for plain dtypes.
pub fn weight_bytes(arch: &ModelArch, ga: GgufArch, d: Dtype) -> Option<u64> {
    typed_tensors(arch, ga, d).map(|ts| ts.iter().fold(0u64, |a, t| a.saturating_add(t.bytes)))
}

/// The weights of a serving `setup` whose dtype is a llama.cpp file type, before any
/// tensor-parallel split: the exact sum over the architecture's tensors, or, for a bare
/// parameter count, `params` × the main type's bytes per weight (exact for a file of that type
/// throughout, rounded up to whole blocks). With the formula in words; `None` for plain dtypes.
pub fn serving_weights(setup: &Setup, params: u64) -> Option<(u128, String)> {
    let main = setup.dtype.gguf_type()?;
    let name = setup.dtype.name();
    match &setup.model {
        ModelSpec::Arch { name: id, arch } => {
            let ga = GgufArch::of_model(id);
            let typed = typed_tensors(arch, ga, setup.dtype)?;
            let bytes: u128 = typed.iter().map(|t| u128::from(t.bytes)).sum();
            Some((
                bytes,
                format!(
                    "llama.cpp {name}: {} tensors, each in the type llama-quantize gives it ({})",
                    typed.len(),
                    mix_text(&typed)
                ),
            ))
        }
        ModelSpec::Params(_) => {
            let bytes = (u128::from(params)).div_ceil(u128::from(main.block_values()))
                * u128::from(main.block_bytes());
            Some((
                bytes,
                format!(
                    "{} B per {} weights ({main}) × {}",
                    main.block_bytes(),
                    main.block_values(),
                    format_count(params)
                ),
            ))
        }
    }
}

/// "Q4_K 62%, Q6_K 33%, F32 0.01%": each type's share of the bytes, largest first.
pub fn mix_text(typed: &[TypedTensor]) -> String {
    let total: u64 = typed.iter().map(|t| t.bytes).sum::<u64>().max(1);
    let mut by_type: Vec<(TensorType, u64)> = Vec::new();
    for t in typed {
        match by_type.iter_mut().find(|(ty, _)| *ty == t.ty) {
            Some((_, b)) => *b += t.bytes,
            None => by_type.push((t.ty, t.bytes)),
        }
    }
    by_type.sort_by_key(|e| std::cmp::Reverse(e.1));
    let parts: Vec<String> = by_type
        .iter()
        .map(|(ty, b)| format!("{ty} {}", percent(*b as f64 / total as f64)))
        .collect();
    parts.join(", ")
}

fn percent(share: f64) -> String {
    let p = share * 100.0;
    if p >= 1.0 {
        format!("{p:.0}%")
    } else {
        format!("{p:.2}%")
    }
}
