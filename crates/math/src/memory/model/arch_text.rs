//! A whole architecture as one short URL-safe text, so that a link to a model read from a
//! `config.json` carries everything the numbers use: `deepseek_v3.L61.H7168.A128.K128.D192.
//! F2048.V129280.S163840.E256.X8.SE1.DL3.DF18432.rb.mla1536-512-128-64-128`.
//!
//! The first item is the config's `model_type` (letters, digits, `_` and `-`); then items
//! separated by `.`: the core sizes always (`L` layers, `H` hidden, `A` heads, `K` KV heads, `D`
//! head width, `F` FFN width, `V` vocabulary, `S` trained context), and every other field only
//! where it differs from a plain dense model ([`ModelArch::DENSE_EXTRAS`]). A key is letters, its
//! value the digits after them; a flag is its key alone.

use super::arch::{Mla, Mlp, ModelArch, Norm};

/// `arch` as text, named `model_type`.
pub fn arch_to_text(model_type: &str, a: &ModelArch) -> String {
    let d = ModelArch::DENSE_EXTRAS;
    let name: String = model_type
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    let mut items = vec![if name.is_empty() {
        "config".into()
    } else {
        name
    }];
    for (key, v) in [
        ("L", a.layers),
        ("H", a.hidden),
        ("A", a.heads),
        ("K", a.kv_heads),
        ("D", a.head_dim),
        ("F", a.ffn),
        ("V", a.vocab),
        ("S", a.max_seq),
    ] {
        items.push(format!("{key}{v}"));
    }
    for (key, v, default) in numbers(a, &d) {
        if v != default {
            items.push(format!("{key}{v}"));
        }
    }
    for (key, on, default) in flags(a, &d) {
        if on != default {
            items.push(key.to_string());
        }
    }
    if let Some(m) = a.mla {
        items.push(format!(
            "mla{}-{}-{}-{}-{}",
            m.q_lora_rank, m.kv_lora_rank, m.qk_nope_head_dim, m.qk_rope_head_dim, m.v_head_dim
        ));
    }
    items.join(".")
}

/// The numeric fields written only when they differ from `d`: key, value, default.
fn numbers(a: &ModelArch, d: &ModelArch) -> [(&'static str, u64, u64); 9] {
    [
        ("N", a.norms_per_layer, d.norms_per_layer),
        ("P", a.position_embeddings, d.position_embeddings),
        ("E", a.experts, d.experts),
        ("X", a.active_experts, d.active_experts),
        ("SE", a.shared_experts, d.shared_experts),
        ("DL", a.dense_layers, d.dense_layers),
        ("DF", a.dense_ffn, d.dense_ffn),
        ("W", a.sliding_window, d.sliding_window),
        ("WL", a.sliding_layers, d.sliding_layers),
    ]
}

/// The flags written only when they differ from `d` (the MLP and norm kinds among them).
fn flags(a: &ModelArch, d: &ModelArch) -> [(&'static str, bool, bool); 13] {
    [
        ("gelu", a.mlp == Mlp::Gelu, d.mlp == Mlp::Gelu),
        ("ln", a.norm == Norm::LayerNorm, d.norm == Norm::LayerNorm),
        ("qb", a.qkv_bias, d.qkv_bias),
        ("ob", a.out_bias, d.out_bias),
        ("mb", a.mlp_bias, d.mlp_bias),
        ("en", a.embedding_norm, d.embedding_norm),
        ("tie", a.tied_embeddings, d.tied_embeddings),
        ("rb", a.router_bias, d.router_bias),
        ("qn", a.qk_norm, d.qk_norm),
        ("sink", a.attention_sinks, d.attention_sinks),
        ("go", a.gelu_ops, d.gelu_ops),
        ("ad", a.attention_dropout, d.attention_dropout),
        ("rd", a.residual_dropout, d.residual_dropout),
    ]
}

/// Reads [`arch_to_text`]'s text back: the `model_type` and the architecture. An unknown key, a
/// missing core size or a number that does not parse is an error naming it (the caller checks
/// the sizes' ranges, as for any architecture).
pub fn arch_from_text(text: &str) -> Result<(String, ModelArch), String> {
    let mut items = text.trim().split('.');
    let name = items.next().filter(|n| !n.is_empty()).ok_or("is empty")?;
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(format!("'{name}' is not a model type"));
    }
    let mut a = ModelArch::DENSE_EXTRAS;
    let mut core = 0u8;
    for item in items {
        if let Some(mla) = item.strip_prefix("mla") {
            let v: Vec<u64> = mla
                .split('-')
                .map(|n| {
                    n.parse()
                        .map_err(|_| format!("'{item}' is not five numbers"))
                })
                .collect::<Result<_, _>>()?;
            let [q, kv, nope, rope, v] = v[..] else {
                return Err(format!("'{item}' is not five numbers"));
            };
            a.mla = Some(Mla {
                q_lora_rank: q,
                kv_lora_rank: kv,
                qk_nope_head_dim: nope,
                qk_rope_head_dim: rope,
                v_head_dim: v,
            });
            continue;
        }
        let split = item
            .find(|c: char| c.is_ascii_digit())
            .unwrap_or(item.len());
        let (key, digits) = item.split_at(split);
        if digits.is_empty() {
            set_flag(&mut a, key).ok_or_else(|| format!("'{item}' is not a field"))?;
            continue;
        }
        let v: u64 = digits
            .parse()
            .map_err(|_| format!("'{item}' does not end in a number"))?;
        let field = match key {
            "L" => &mut a.layers,
            "H" => &mut a.hidden,
            "A" => &mut a.heads,
            "K" => &mut a.kv_heads,
            "D" => &mut a.head_dim,
            "F" => &mut a.ffn,
            "V" => &mut a.vocab,
            "S" => &mut a.max_seq,
            "N" => &mut a.norms_per_layer,
            "P" => &mut a.position_embeddings,
            "E" => &mut a.experts,
            "X" => &mut a.active_experts,
            "SE" => &mut a.shared_experts,
            "DL" => &mut a.dense_layers,
            "DF" => &mut a.dense_ffn,
            "W" => &mut a.sliding_window,
            "WL" => &mut a.sliding_layers,
            _ => return Err(format!("'{item}' is not a field")),
        };
        *field = v;
        if key.len() == 1 && "LHAKDFVS".contains(key) {
            core |= 1 << "LHAKDFVS".find(key).unwrap_or(0);
        }
    }
    if core != 0xff {
        return Err("lacks one of the sizes L, H, A, K, D, F, V, S".into());
    }
    Ok((name.to_string(), a))
}

/// Turns on the flag `key`; `None` for a key that is not a flag.
fn set_flag(a: &mut ModelArch, key: &str) -> Option<()> {
    match key {
        "gelu" => a.mlp = Mlp::Gelu,
        "ln" => a.norm = Norm::LayerNorm,
        "qb" => a.qkv_bias = true,
        "ob" => a.out_bias = true,
        "mb" => a.mlp_bias = true,
        "en" => a.embedding_norm = true,
        "tie" => a.tied_embeddings = true,
        "rb" => a.router_bias = true,
        "qn" => a.qk_norm = true,
        "sink" => a.attention_sinks = true,
        "go" => a.gelu_ops = true,
        "ad" => a.attention_dropout = true,
        "rd" => a.residual_dropout = true,
        _ => return None,
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::model::models::model_presets;

    #[test]
    fn every_preset_survives_the_text() {
        for m in model_presets() {
            let text = arch_to_text("preset", &m.arch);
            assert_eq!(
                arch_from_text(&text),
                Ok(("preset".into(), m.arch.clone())),
                "{}: {text}",
                m.id
            );
            assert!(text.len() < 200, "{}: {text}", m.id);
        }
    }

    #[test]
    fn bad_text_is_named() {
        assert_eq!(arch_from_text(""), Err("is empty".into()));
        assert!(arch_from_text("llama.L2.H8")
            .unwrap_err()
            .contains("lacks one of the sizes"));
        assert!(arch_from_text("llama.Q7")
            .unwrap_err()
            .contains("'Q7' is not a field"));
        assert!(arch_from_text("llama.mla1-2")
            .unwrap_err()
            .contains("five numbers"));
        assert!(arch_from_text("lla ma.L1")
            .unwrap_err()
            .contains("not a model type"));
        assert!(arch_from_text("llama.L99999999999999999999999").is_err());
    }
}
