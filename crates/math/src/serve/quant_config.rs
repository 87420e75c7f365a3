//! A `config.json`'s `quantization_config` read as a [`Checkpoint`]: how the published checkpoint
//! stores its weights, so that DeepSeek-V3's FP8 release is sized at one byte a weight, not two.

use super::checkpoint::Checkpoint;
use serde_json::Value;

/// The checkpoint a `config.json` describes, with a sentence saying what was read: `Ok(None)`
/// without a `quantization_config` (the weights are `torch_dtype`: BF16 unless it says float16);
/// an error naming the method or bit width when it is one bitbudget does not size.
pub fn checkpoint_of(config_json: &str) -> Result<(Checkpoint, String), String> {
    let v: Value =
        serde_json::from_str(config_json).map_err(|e| format!("config.json is not JSON: {e}"))?;
    let text = v.get("text_config").unwrap_or(&v);
    let plain = match v
        .get("torch_dtype")
        .or(text.get("torch_dtype"))
        .and_then(Value::as_str)
    {
        Some("float16") => Checkpoint::Fp16,
        _ => Checkpoint::Bf16,
    };
    let Some(q) = v.get("quantization_config") else {
        return Ok((plain, format!("no quantization_config: {plain} weights")));
    };
    let method = q
        .get("quant_method")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_ascii_lowercase();
    let bits = q.get("bits").or(q.get("w_bit")).and_then(Value::as_u64);
    let said = |c: Checkpoint, detail: &str| {
        Ok((c, format!("quantization_config: {method}{detail} → {c}")))
    };
    match method.as_str() {
        "fp8" | "fbgemm_fp8" => said(Checkpoint::Fp8, ""),
        "mxfp4" => said(Checkpoint::Mxfp4, " (experts MXFP4, the rest BF16)"),
        "awq" | "gptq" => match bits {
            Some(4) | None => said(Checkpoint::Int4, ", 4 bits in groups"),
            Some(8) => said(Checkpoint::Int8, ", 8 bits"),
            Some(b) => Err(format!("{method} with {b} bits is not sized (4 and 8 are)")),
        },
        "bitsandbytes" => {
            let flag = |k: &str| q.get(k).and_then(Value::as_bool).unwrap_or(false);
            if flag("load_in_4bit") {
                said(Checkpoint::Int4, ", 4-bit")
            } else if flag("load_in_8bit") {
                said(Checkpoint::Int8, ", 8-bit")
            } else {
                Err("bitsandbytes without load_in_4bit or load_in_8bit".into())
            }
        }
        "compressed-tensors" => {
            let weights = q
                .get("config_groups")
                .and_then(Value::as_object)
                .and_then(|g| g.values().next())
                .and_then(|g| g.get("weights"));
            let nb = weights.and_then(|w| w.get("num_bits")).and_then(Value::as_u64);
            let kind = weights.and_then(|w| w.get("type")).and_then(Value::as_str).unwrap_or("int");
            match (nb, kind) {
                (Some(8), "float") => said(Checkpoint::Fp8, ", 8-bit float"),
                (Some(8), _) => said(Checkpoint::Int8, ", 8-bit integer"),
                (Some(4), "float") => said(Checkpoint::Nvfp4, ", 4-bit float"),
                (Some(4), _) => said(Checkpoint::Int4, ", 4-bit integer"),
                (b, k) => Err(format!(
                    "compressed-tensors weights of {} bits ({k}) are not sized",
                    b.map_or("unstated".into(), |b| b.to_string())
                )),
            }
        }
        "modelopt" => match q.get("quant_algo").and_then(Value::as_str).unwrap_or("") {
            "FP8" => said(Checkpoint::Fp8, ", FP8"),
            "NVFP4" => said(Checkpoint::Nvfp4, ", NVFP4"),
            other => Err(format!("modelopt quant_algo '{other}' is not sized (FP8 and NVFP4 are)")),
        },
        "" => Err("quantization_config has no quant_method".into()),
        other => Err(format!(
            "quantization method '{other}' is not known (fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors and modelopt are)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deepseek_v3s_block_fp8_is_one_byte_a_weight() {
        let cfg = r#"{"quantization_config":{"activation_scheme":"dynamic","fmt":"e4m3","quant_method":"fp8","weight_block_size":[128,128]}}"#;
        assert_eq!(checkpoint_of(cfg).unwrap().0, Checkpoint::Fp8);
    }

    #[test]
    fn methods_and_widths_are_read_or_refused_by_name() {
        let q = |inner: &str| checkpoint_of(&format!(r#"{{"quantization_config":{inner}}}"#));
        assert_eq!(
            q(r#"{"quant_method":"awq","bits":4,"group_size":128}"#)
                .unwrap()
                .0,
            Checkpoint::Int4
        );
        assert_eq!(
            q(r#"{"quant_method":"mxfp4"}"#).unwrap().0,
            Checkpoint::Mxfp4
        );
        assert_eq!(
            q(r#"{"quant_method":"compressed-tensors","config_groups":{"group_0":{"weights":{"num_bits":8,"type":"float"}}}}"#).unwrap().0,
            Checkpoint::Fp8
        );
        assert!(q(r#"{"quant_method":"gptq","bits":3}"#)
            .unwrap_err()
            .contains("3 bits"));
        assert!(q(r#"{"quant_method":"hqq"}"#)
            .unwrap_err()
            .contains("'hqq' is not known"));
        assert_eq!(
            checkpoint_of(r#"{"torch_dtype":"float16"}"#).unwrap().0,
            Checkpoint::Fp16
        );
        assert!(checkpoint_of("{").is_err());
    }
}
