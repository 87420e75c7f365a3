//! Model states of the FP8 and FP4 training recipes ([`crate::memory::recipe`]): the 16-bit (or
//! FP32) weights, the recipe's quantized copies of the block linears with their scales, amax
//! histories, FP32 gradients, the FP32 master copy and Adam's moments in the chosen type. Each copy
//! is a term of its part's formula; the weights' hover text says why each exists.

use crate::memory::line::{state_line as line, why_optimizer, StateLines, WHY_GRADS};
use crate::memory::recipe::{unsupported, width_text, Recipe, AMAX_ROWS_PER_GEMM, UNIT};
use crate::memory::setup::{MemoryError, Setup};
use crate::memory::states::sharing::{
    apply_offload, layer_weight_bytes, moments_bytes, moments_text, share, step_temporaries,
};
use crate::numbers::format_count;

/// Model states of full training under `recipe`.
pub fn low_precision_states(
    setup: &Setup,
    params: u64,
    recipe: &Recipe,
    notes: &mut Vec<String>,
) -> Result<StateLines, MemoryError> {
    let (ws, gs, os) = (
        share(setup, setup.zero.0 >= 3),
        share(setup, setup.zero.0 >= 2),
        share(setup, setup.zero.0 >= 1),
    );
    let model_parallel = share(setup, false);
    let routed = setup.arch().map_or(0, |a| a.routed_expert_params());
    let cores = setup.gpu.as_ref().map(|g| g.low_precision);
    notes.push(format!(
        "the {} recipe follows {}",
        recipe.precision, recipe.follows
    ));
    if let Some(why) = setup
        .gpu
        .as_ref()
        .and_then(|g| unsupported(recipe, g.low_precision, g.name))
    {
        notes.push(why);
    }
    if cores.is_none() {
        notes.push(format!(
            "no GPU chosen: {} is sized as on Hopper (FP8 matmuls read a transposed copy)",
            recipe.precision
        ));
    }
    let quantized = match setup.arch() {
        Some(a) => recipe.quantized_params(a),
        None => {
            notes.push(format!(
                "only a parameter count was given: {} is sized as if every parameter were a block linear",
                recipe.precision
            ));
            params
        }
    };
    let gather = setup.fp8_param_gather;
    let n = params as u128;

    // Weights: the high-precision parameters (FP32 under torchtitan), less the quantized ones when
    // the FP8 copy is the parameter (--fp8-param-gather).
    let hp_bytes = if recipe.fp32_params {
        4
    } else {
        setup.dtype.bits().div_ceil(8)
    };
    let hp_name = if recipe.fp32_params {
        "FP32".to_string()
    } else {
        setup.dtype.to_string().to_uppercase()
    };
    let hp_count = if gather { params - quantized } else { params };
    // The routed experts are block linears: with the FP8 gather none of them stays 16-bit.
    let hp_experts = if gather { 0 } else { routed };
    let hp = ws.divide_part(hp_count as u128 * hp_bytes as u128, hp_count, hp_experts);
    let mut terms = vec![ws.of_part(
        &format!("{hp_bytes} B {hp_name}"),
        hp_count,
        hp_experts,
        "params",
    )];
    let orientations = recipe.orientations(cores);
    let width = recipe.weight_format.width();
    // Without the FP8 gather each layer's copies are made from its gathered weight and saved for
    // its backward pass: whole on every data-parallel rank.
    let copy_share = if gather { &ws } else { &model_parallel };
    let copies = copy_share
        .divide_part(
            quantized as u128 * orientations as u128 * width as u128,
            quantized,
            routed,
        )
        .div_ceil(UNIT as u128);
    if orientations > 0 {
        let which = if orientations == 2 {
            "both orientations"
        } else {
            "one layout"
        };
        terms.push(copy_share.of_part(
            &format!(
                "{orientations} × {} B {} ({which})",
                width_text(width),
                recipe.weight_format.label()
            ),
            quantized,
            routed,
            "block linears",
        ));
    }
    let amax = match setup.arch() {
        Some(a) if recipe.amax_history > 0 => {
            let blocks = (a.layers - recipe.bf16_blocks(a.layers)).div_ceil(setup.pp);
            let gemms = Recipe::gemms_per_block(a) * blocks;
            terms.push(format!(
                "amax histories 4 B × {AMAX_ROWS_PER_GEMM} × {} steps × {gemms} GEMMs",
                recipe.amax_history
            ));
            4 * AMAX_ROWS_PER_GEMM as u128 * recipe.amax_history as u128 * gemms as u128
        }
        _ => 0,
    };
    // torchtitan: each layer is cast to BF16 (FSDP2's all-gather) and to FP8 while it runs.
    let working = match setup.arch() {
        Some(a) if recipe.fp32_params => {
            let layer = a.layer_params() as u128;
            terms.push(format!(
                "one layer's BF16 and FP8 casts (2 + 1) B × {} ÷ tp {}",
                format_count(a.layer_params()),
                setup.tp
            ));
            (layer * 3).div_ceil(setup.tp as u128)
        }
        _ => 0,
    };
    let why_weights = format!("{} Follows {}.", recipe.summary, recipe.follows);
    let weights = line(
        hp + copies + amax + working,
        terms.join(" + "),
        &why_weights,
        setup,
    )?;

    // Gradients: FP32 (Megatron-LM accumulates and reduces BF16 runs' gradients in FP32; DeepSeek-V3
    // and the NVFP4 paper keep them in FP32; torchtitan's are the FP32 parameters').
    if setup.fp32_grad_accum {
        notes.push(format!(
            "{} already keeps FP32 gradients: no separate accumulation buffer",
            recipe.precision
        ));
    }
    let grads = gs.divide(n * 4);
    let gradients = line(
        grads,
        gs.of("4 B FP32", params, "params"),
        &format!("{WHY_GRADS} FP8 and FP4 recipes keep them in FP32 (Megatron-LM's main gradients, DeepSeek-V3 section 3.3.3, the NVFP4 paper section 4.1)."),
        setup,
    )?;

    // Optimizer: the FP32 master copy (unless the parameters are FP32) and the moments.
    let master = if recipe.fp32_params { 0 } else { 4 * n };
    let moments = moments_bytes(setup.optimizer, params, setup.moments.bytes());
    let states = moments_text(setup.optimizer, setup.moments.bytes());
    let text = if recipe.fp32_params {
        states
    } else {
        format!("4 B FP32 master + {states}")
    };
    let optimizer = line(
        os.divide(master + moments),
        os.of(&text, params, "params"),
        &why_optimizer(setup),
        setup,
    )?;
    let mut lines = StateLines {
        weights,
        gradients,
        optimizer,
        trainable: params,
        cpu: 0,
        step_temporaries: crate::memory::line::to_u64(step_temporaries(setup, params, 4, &os))?,
    };
    let grad_bucket = setup
        .arch()
        .map(|a| a.largest_layer_params().div_ceil(setup.tp) as u128 * 4);
    apply_offload(
        setup,
        &mut lines,
        layer_weight_bytes(setup, hp_bytes * 8),
        grad_bucket,
    )?;
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use crate::memory::activation::activations::{per_layer_bytes, ActivationShape, SavedInputs};
    use crate::memory::model::gpus::find_gpu;
    use crate::memory::options::{Moments, Precision, Recompute};
    use crate::memory::recipe::{recipe, Format};
    use crate::memory::setup::{ModelSpec, Setup};
    use crate::memory::{estimate, find_model};

    const PARAMS: u64 = 1_000_000_000;

    /// Model-state bytes per parameter of a model given only by its parameter count (every
    /// parameter then counts as a block linear), on one GPU.
    fn per_param(precision: Precision, gpu: &str, gather: bool, moments: Moments) -> f64 {
        let mut s = Setup::new(ModelSpec::Params(PARAMS));
        s.gpu = find_gpu(gpu);
        (s.precision, s.fp8_param_gather, s.moments) = (precision, gather, moments);
        if gather {
            s.zero = crate::memory::options::ZeroStage(1);
        }
        let b = estimate(&s).unwrap();
        (b.weights.bytes + b.gradients.bytes + b.optimizer.bytes) as f64 / PARAMS as f64
    }

    /// The bytes per parameter that `docs/research/fp8_recipes.md` (section 10) derives from each
    /// framework's sources: Megatron-LM's 18 B of BF16 training (BF16 weights, FP32 main
    /// gradients, FP32 master and moments) plus the recipe's quantized copies.
    #[test]
    fn bytes_per_parameter_match_the_recipes_sources() {
        use Precision as P;
        let f32m = Moments::Fp32;
        let cases = [
            // Hopper: a per-tensor FP8 copy and its transpose (Transformer Engine, TE issue #1261).
            (P::Fp8Delayed, "h100-80gb", false, f32m, 20.0),
            (P::Fp8Current, "h100-80gb", false, f32m, 20.0),
            // Blackwell reads one per-tensor copy both ways (TE issue #1880: "1 byte/param").
            (P::Fp8Current, "b200", false, f32m, 19.0),
            // --fp8-param-gather: the FP8 copies are the parameters (Megatron-LM, TE issue #1764).
            (P::Fp8Current, "h100-80gb", true, f32m, 18.0),
            (P::Fp8Current, "b200", true, f32m, 17.0),
            // MXFP8 "requires 2 bytes/param" of copies (TE issue #1880), 1/32 more for scales.
            (P::Mxfp8, "b200", false, f32m, 18.0 + 2.0 * 1.03125),
            (P::Mxfp8, "b200", true, f32m, 16.0 + 2.0 * 1.03125),
            // NVFP4: both orientations at 0.5625 B (E2M1 + an E4M3 scale per 16).
            (P::Nvfp4, "b200", false, f32m, 18.0 + 2.0 * 0.5625),
            // DeepSeek-V3: FP32 master and gradients, BF16 moments (section 3.3.3), and
            // Transformer Engine's two 128×128-block copies.
            (
                P::Fp8Blockwise,
                "h100-80gb",
                false,
                Moments::Bf16,
                14.0 + 2.0 * (1.0 + 4.0 / 16384.0),
            ),
            // torchtitan: FP32 parameters, gradients and moments.
            (P::Fp8Rowwise, "h100-80gb", false, f32m, 16.0),
        ];
        for (precision, gpu, gather, moments, expected) in cases {
            let got = per_param(precision, gpu, gather, moments);
            assert!(
                (got - expected).abs() < 1e-6,
                "{precision} on {gpu} (gather {gather}): {got} B/param, expected {expected}"
            );
        }
    }

    /// "we cache the FP8 data (on Blackwell) or the FP8 transpose data (on Hopper), so I expect
    /// we'd see a 50% reduction in the activation memory" of the linear layers' inputs (TE issue
    /// #1764): each linear input saved is exactly half its 16-bit size; the rest is unchanged.
    #[test]
    fn per_tensor_fp8_halves_the_saved_linear_inputs() {
        let arch = find_model("llama-3-8b").unwrap().arch;
        let shape = |saved| ActivationShape {
            arch: &arch,
            batch: 1,
            seq: 4096,
            tp: 1,
            sequence_parallel: false,
            recompute: Recompute::None,
            flash_attention: true,
            elem_bytes: 2,
            saved,
            expert_load_percent: 100,
        };
        let fp8 = Format::Fp8Tensor.width();
        let saved = SavedInputs {
            linear: fp8,
            attention_out: fp8,
            swiglu_recomputed: false,
        };
        let bf16 = per_layer_bytes(&shape(None)).0;
        let quantized = per_layer_bytes(&shape(Some(saved))).0;
        // The linear inputs per token: QKV (h), output projection (h), MLP (h) and the down
        // projection (f), one byte each instead of two.
        let linear_inputs = 4096 * (3 * 4096 + 14336);
        assert_eq!(bf16 - quantized, linear_inputs);
    }

    #[test]
    fn every_copy_is_a_term_of_the_weights_formula_and_the_total_adds_up() {
        let mut s = Setup::new(ModelSpec::preset("llama-3-8b").unwrap());
        s.gpu = find_gpu("h100-80gb");
        s.precision = Precision::Fp8Delayed;
        let b = estimate(&s).unwrap();
        let f = &b.weights.formula;
        assert!(f.contains("2 B BF16 × 8.03B params"), "{f}");
        assert!(f.contains("2 × 1 B FP8 (both orientations)"), "{f}");
        assert!(
            f.contains("amax histories 4 B × 5 × 1024 steps × 128 GEMMs"),
            "{f}"
        );
        assert!(
            b.weights.why.contains("Transformer Engine"),
            "{}",
            b.weights.why
        );
        assert!(b
            .notes
            .iter()
            .any(|n| n.contains("the fp8-delayed recipe follows Transformer Engine")));
        // 128 GEMMs × 20 KiB of history beside the weights and copies.
        let linear = find_model("llama-3-8b").unwrap().arch.block_linear_params();
        let params = b.params;
        assert_eq!(
            b.weights.bytes,
            2 * params + 2 * linear + 128 * 5 * 1024 * 4
        );
    }

    #[test]
    fn block_scaled_recipes_on_hopper_say_they_need_blackwell() {
        for p in [Precision::Mxfp8, Precision::Nvfp4] {
            let mut s = Setup::new(ModelSpec::preset("llama-3-8b").unwrap());
            s.gpu = find_gpu("h100-80gb");
            s.precision = p;
            let b = estimate(&s).unwrap();
            assert!(b.notes.iter().any(|n| n.contains("needs Blackwell")), "{p}");
        }
        let mut s = Setup::new(ModelSpec::preset("llama-3-8b").unwrap());
        s.gpu = find_gpu("a100-80gb");
        s.precision = Precision::Fp8Current;
        let b = estimate(&s).unwrap();
        assert!(b.notes.iter().any(|n| n.contains("no FP8 tensor cores")));
    }

    #[test]
    fn recipes_refuse_what_their_frameworks_refuse() {
        use crate::memory::options::{Dtype, Mode, ZeroStage};
        let base = || {
            let mut s = Setup::new(ModelSpec::preset("llama-3-8b").unwrap());
            s.precision = Precision::Fp8Current;
            s
        };
        let refused = |s: Setup| estimate(&s).unwrap_err().to_string();
        let mut s = base();
        s.fp8_param_gather = true;
        assert!(refused(s).contains("sharded optimizer"));
        let mut s = base();
        (s.fp8_param_gather, s.zero, s.precision) = (true, ZeroStage(1), Precision::Fp8Rowwise);
        assert!(refused(s).contains("tensorwise"));
        let mut s = base();
        (s.precision, s.dtype) = (Precision::Mixed, Dtype::Fp8);
        assert!(refused(s).contains("not a dtype to train in"));
        let mut s = base();
        s.mode = Mode::Lora;
        assert!(refused(s).contains("full-training recipe"));
        assert!(recipe(Precision::Mixed).is_none());
    }

    /// Sharding divides the 16-bit weights, gradients and optimizer states; without the FP8
    /// gather each rank's copies are whole (made from the gathered weight, saved for backward).
    #[test]
    fn zero_3_shards_the_weights_but_not_the_copies_made_from_them() {
        use crate::memory::options::ZeroStage;
        let run = |gather: bool| {
            let mut s = Setup::new(ModelSpec::Params(PARAMS));
            s.gpu = find_gpu("b200");
            (s.precision, s.zero, s.dp, s.fp8_param_gather) =
                (Precision::Fp8Current, ZeroStage(3), 8, gather);
            estimate(&s).unwrap().weights.bytes
        };
        assert_eq!(run(false), 2 * PARAMS / 8 + PARAMS);
        assert_eq!(run(true), PARAMS / 8);
    }
}
