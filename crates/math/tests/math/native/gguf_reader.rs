//! The GGUF reader on small synthetic files built with [`GgufWriter`]: values, tensor index,
//! prefixes that ask for more, huge files sized from their header, and every error.

use bitbudget_math::gguf::{
    next_read_len, parse, GgufError, GgufWriter, TensorType, Value, ValueType,
};

fn tokens(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("tok{i}")).collect()
}

fn sample() -> GgufWriter {
    let toks = tokens(1100);
    let refs: Vec<&str> = toks.iter().map(String::as_str).collect();
    GgufWriter::new()
        .string("general.architecture", "llama")
        .u32("llama.block_count", 2)
        .u64("llama.context_length", 8192)
        .f32("llama.rope.freq_base", 500000.0)
        .i32s("llama.head_counts", &[8, 8])
        .strings("tokenizer.ggml.tokens", &refs)
        .tensor("token_embd.weight", &[256, 300], TensorType::Q4_K)
        .tensor("blk.0.attn_norm.weight", &[256], TensorType::F32)
        .tensor("blk.0.attn_v.weight", &[256, 64], TensorType::Q6_K)
        .tensor("output.weight", &[256, 300], TensorType::Q8_0)
}

#[test]
fn a_small_file_parses_with_its_metadata_and_tensors() {
    let file = sample().file();
    let g = parse(&file, Some(file.len() as u64)).unwrap();
    assert_eq!(g.version, 3);
    assert_eq!(g.architecture(), Some("llama"));
    assert_eq!(g.get("llama.block_count"), Some(&Value::U32(2)));
    assert_eq!(
        g.get("llama.context_length").and_then(Value::as_u64),
        Some(8192)
    );
    assert_eq!(g.get("llama.rope.freq_base"), Some(&Value::F32(500000.0)));
    let Some(Value::Array(heads)) = g.get("llama.head_counts") else {
        panic!("head_counts is not an array");
    };
    assert_eq!(heads.items, vec![Value::I32(8), Value::I32(8)]);
    let Some(Value::Array(toks)) = g.get("tokenizer.ggml.tokens") else {
        panic!("tokens is not an array");
    };
    assert_eq!(
        (toks.elem, toks.len, toks.items.len()),
        (ValueType::String, 1100, 0)
    );
    assert_eq!(g.tensors.len(), 4);
    let v = &g.tensors[2];
    assert_eq!(
        (v.name.as_str(), v.ty, v.dims.as_slice()),
        ("blk.0.attn_v.weight", TensorType::Q6_K, &[256u64, 64][..])
    );
    assert_eq!(v.bytes, 64 * 210);
    assert_eq!(g.tensors[0].bytes, 300 * 144);
    assert_eq!(g.tensors[1].bytes, 1024);
    assert_eq!(g.tensors[3].bytes, 300 * 8 * 34);
    assert_eq!(g.data_offset % 32, 0);
    assert_eq!(g.data_offset + g.data_bytes, file.len() as u64);
    assert_eq!(g.tensor_bytes(), 300 * 144 + 1024 + 64 * 210 + 300 * 8 * 34);
}

#[test]
fn a_short_prefix_asks_for_more_until_the_header_is_whole() {
    let (header, len) = sample().header();
    // The index ends before the padding up to the data section: from there on, it parses.
    let whole = (0..=header.len())
        .find(|cut| parse(&header[..*cut], Some(len)).is_ok())
        .expect("the header parses");
    assert!(whole + 32 > header.len());
    for cut in 0..whole {
        match parse(&header[..cut], Some(len)) {
            Err(GgufError::NeedMore { have, needed }) => {
                assert_eq!(have, cut as u64);
                assert!(
                    needed > have && needed <= whole as u64,
                    "cut {cut}: {needed}"
                );
            }
            other => panic!("cut {cut}: {other:?}"),
        }
    }
    // Growing the read as the parser asks reaches the whole header in a few reads.
    let mut have = 32;
    let mut reads = 0;
    let g = loop {
        reads += 1;
        match parse(&header[..have as usize], Some(len)) {
            Ok(g) => break g,
            Err(e) => have = next_read_len(&e, header.len() as u64).expect("asks for more"),
        }
    };
    assert!(reads <= 12, "{reads} reads");
    assert_eq!(g.tensors.len(), 4);
}

#[test]
fn a_file_of_tens_of_gigabytes_is_sized_from_its_header_alone() {
    let mut w = GgufWriter::new().string("general.architecture", "llama");
    for l in 0..80 {
        w = w
            .tensor(
                &format!("blk.{l}.ffn_down.weight"),
                &[28672, 8192],
                TensorType::Q6_K,
            )
            .tensor(
                &format!("blk.{l}.ffn_up.weight"),
                &[8192, 28672],
                TensorType::Q4_K,
            );
    }
    let (header, len) = w.header();
    assert!(header.len() < 16 * 1024);
    let g = parse(&header, Some(len)).unwrap();
    let per_layer = 28672 * 8192 / 256 * (210 + 144);
    assert_eq!(g.tensor_bytes(), 80 * per_layer);
    assert!(len > 25_000_000_000, "{len}");
}

/// Parses `file` as a whole file and returns the error's message.
fn error(file: &[u8]) -> String {
    parse(file, Some(file.len() as u64))
        .unwrap_err()
        .to_string()
}

#[test]
fn not_gguf_and_unsupported_versions_say_so() {
    assert!(error(b"PK\x03\x04 a zip file").contains("not a GGUF file"));
    assert!(error(b"GG").contains("not a GGUF file"));
    // Version 2 has version 3's little-endian layout: llama.cpp reads both.
    let mut v2 = sample().file();
    v2[4] = 2;
    assert_eq!(parse(&v2, None).unwrap().version, 2);
    let mut v1 = sample().file();
    v1[4] = 1;
    assert!(error(&v1).contains("version 1 is not supported"));
    v1[4] = 4;
    assert!(error(&v1).contains("version 4 is not supported"));
}

#[test]
fn a_truncated_file_says_how_many_bytes_its_header_needs() {
    let (header, _) = sample().header();
    let cut = &header[..header.len() / 2];
    let msg = error(cut);
    assert!(
        msg.contains("truncated GGUF file")
            && msg.contains(&format!("ends after {} bytes", cut.len())),
        "{msg}"
    );
    let file = sample().file();
    let short = &file[..file.len() - 100];
    let msg = error(short);
    assert!(msg.contains("tensor 'output.weight' ends at byte"), "{msg}");
}

#[test]
fn absurd_counts_and_lengths_are_refused_before_allocating() {
    let mut many = sample().file();
    many[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
    assert!(error(&many).contains("tensors (at most 1048576"));
    let mut kv = sample().file();
    kv[16..24].copy_from_slice(&(1u64 << 40).to_le_bytes());
    assert!(error(&kv).contains("metadata keys"));
    let mut key_len = sample().file();
    key_len[24..32].copy_from_slice(&(1u64 << 62).to_le_bytes());
    assert!(error(&key_len).contains("string bytes"));
    let huge_array = GgufWriter::new()
        .raw("a", 9, &[4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40])
        .file();
    assert!(error(&huge_array).contains("array elements"));
}

#[test]
fn unknown_types_and_bad_shapes_name_the_key_or_tensor() {
    let bad_value = GgufWriter::new().raw("general.x", 13, &[0; 8]).file();
    assert!(error(&bad_value).contains("'general.x' has value type 13"));
    let nested = GgufWriter::new()
        .raw("general.x", 9, &[9, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0])
        .file();
    assert!(error(&nested).contains("no arrays of arrays"));
    // Type id 4 (Q4_2) was removed from GGUF files.
    let mut removed = GgufWriter::new()
        .tensor("w", &[32, 2], TensorType::Q4_0)
        .file();
    let at = find(&removed, &2u32.to_le_bytes(), 24 + 8 + 1 + 4 + 16);
    removed[at] = 4;
    assert!(error(&removed).contains("tensor 'w' has type id 4"));
    let ragged = GgufWriter::new()
        .tensor("w", &[100, 2], TensorType::Q4_K)
        .header()
        .0;
    assert!(error(&ragged).contains("rows of 100 values, not a whole number of q4_K blocks of 256"));
    let five = GgufWriter::new()
        .tensor("w", &[1, 1, 1, 1, 1], TensorType::F32)
        .file();
    assert!(error(&five).contains("5 tensor dimensions"));
    let overflow = GgufWriter::new()
        .tensor("w", &[1 << 32, 1 << 32], TensorType::F32)
        .header()
        .0;
    assert!(error(&overflow).contains("more than 2^63 values"));
    let long = "x".repeat(64);
    let long_name = GgufWriter::new()
        .tensor(&long, &[4], TensorType::F32)
        .file();
    assert!(error(&long_name).contains("at most 63"));
}

#[test]
fn repeated_keys_bad_alignment_and_unpacked_offsets_are_corrupt() {
    let twice = GgufWriter::new().u32("a", 1).u32("a", 2).file();
    assert!(error(&twice).contains("'a' is empty or repeated"));
    let align = GgufWriter::new().u32("general.alignment", 3).file();
    assert!(error(&align).contains("not a power of two"));
    let mut gap = GgufWriter::new()
        .tensor("a", &[8], TensorType::F32)
        .tensor("b", &[8], TensorType::F32)
        .file();
    // b's offset is 32 (a's 32 bytes): move it to 64.
    let at = find(&gap, &32u64.to_le_bytes(), 24);
    gap[at] = 64;
    assert!(error(&gap)
        .contains("tensor 'b' starts at data offset 64 but the tensors before it end at 32"));
}

#[test]
fn a_file_without_tensors_has_its_data_right_after_the_metadata() {
    let file = GgufWriter::new().u32("general.alignment", 64).file();
    let g = parse(&file, None).unwrap();
    assert_eq!(
        (g.alignment, g.data_offset, g.data_bytes),
        (64, file.len() as u64, 0)
    );
}

/// The first position at or after `from` where `pattern` occurs.
fn find(hay: &[u8], pattern: &[u8], from: usize) -> usize {
    from + hay[from..]
        .windows(pattern.len())
        .position(|w| w == pattern)
        .expect("pattern present")
}
