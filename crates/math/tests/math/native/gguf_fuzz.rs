//! Fuzzes the GGUF reader with thousands of random and mutated headers (fixed seed, so every run
//! is the same): it must never panic and never allocate more than a small multiple of its input.
//! A counting global allocator records the largest single allocation made while parsing.

use bitbudget_math::gguf::{parse, GgufError, GgufWriter, TensorType};
use bitbudget_math::quant::generate::SplitMix64;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::HashSet;

struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; only records sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(new_size)));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

fn base() -> Vec<u8> {
    let toks: Vec<String> = (0..100).map(|i| format!("t{i}")).collect();
    let refs: Vec<&str> = toks.iter().map(String::as_str).collect();
    GgufWriter::new()
        .string("general.architecture", "llama")
        .u32("llama.block_count", 1)
        .u32("general.alignment", 32)
        .i32s("llama.heads", &[4, 4, 4])
        .strings("tokenizer.ggml.tokens", &refs)
        .tensor("token_embd.weight", &[256, 4], TensorType::Q4_K)
        .tensor("blk.0.attn_norm.weight", &[256], TensorType::F32)
        .tensor("output.weight", &[256, 4], TensorType::Q6_K)
        .file()
}

/// One mutation of `file`: flipped bytes, a huge or random little-endian word written at a
/// random place, a cut, an insertion or a deletion.
fn mutate(file: &mut Vec<u8>, rng: &mut SplitMix64) {
    let at = |rng: &mut SplitMix64, len: usize| (rng.next_u64() as usize) % len.max(1);
    match rng.next_u64() % 6 {
        0 => {
            for _ in 0..1 + rng.next_u64() % 8 {
                let i = at(rng, file.len());
                if let Some(b) = file.get_mut(i) {
                    *b ^= 1 << (rng.next_u64() % 8);
                }
            }
        }
        1 | 2 => {
            let i = at(rng, file.len().saturating_sub(8));
            let word = match rng.next_u64() % 4 {
                0 => u64::MAX,
                1 => 1 << (rng.next_u64() % 64),
                2 => rng.next_u64() % 1000,
                _ => rng.next_u64(),
            };
            if file.len() >= i + 8 {
                file[i..i + 8].copy_from_slice(&word.to_le_bytes());
            }
        }
        3 => file.truncate(at(rng, file.len())),
        4 => {
            let i = at(rng, file.len());
            let n = (rng.next_u64() % 16) as usize;
            let junk: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            file.splice(i..i, junk);
        }
        _ => {
            let i = at(rng, file.len());
            let n = ((rng.next_u64() % 16) as usize).min(file.len() - i.min(file.len()));
            file.drain(i..i + n);
        }
    }
}

/// What the parses of the fuzzed inputs ended in: successes, and each error variant seen.
#[derive(Default)]
struct Outcomes {
    ok: usize,
    kinds: HashSet<std::mem::Discriminant<GgufError>>,
}

fn check(input: &[u8], largest: &mut usize, seen: &mut Outcomes) {
    LARGEST.with(|l| l.set(0));
    for file_len in [None, Some(input.len() as u64), Some(u64::MAX)] {
        match parse(input, file_len) {
            Ok(_) => seen.ok += 1,
            Err(e) => {
                seen.kinds.insert(std::mem::discriminant(&e));
            }
        }
    }
    let used = LARGEST.with(Cell::get);
    assert!(
        used <= 4 * input.len() + 4096,
        "a parse of {} bytes allocated {used} bytes at once",
        input.len()
    );
    *largest = (*largest).max(used);
}

#[test]
fn mutated_and_random_headers_never_panic_or_allocate_absurdly() {
    let base = base();
    assert!(parse(&base, Some(base.len() as u64)).is_ok());
    let mut rng = SplitMix64(0x6767_7566);
    let mut largest = 0;
    let mut seen = Outcomes::default();
    for round in 0..4000 {
        let mut file = base.clone();
        for _ in 0..1 + round % 4 {
            mutate(&mut file, &mut rng);
        }
        check(&file, &mut largest, &mut seen);
    }
    for _ in 0..1000 {
        let n = (rng.next_u64() % 256) as usize;
        let mut file: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
        if rng.next_u64() % 2 == 0 && n >= 8 {
            file[..4].copy_from_slice(b"GGUF");
            file[4..8].copy_from_slice(&3u32.to_le_bytes());
        }
        check(&file, &mut largest, &mut seen);
    }
    println!(
        "largest single allocation while parsing: {largest} bytes; {} parses succeeded; {} error kinds",
        seen.ok,
        seen.kinds.len()
    );
    // The mutations reach deep into the header: some files still parse and most error kinds occur.
    assert!(
        seen.ok > 0 && seen.kinds.len() >= 8,
        "{} ok, {} kinds",
        seen.ok,
        seen.kinds.len()
    );
}
