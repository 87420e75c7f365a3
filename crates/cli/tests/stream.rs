//! The streamed `quantize`, `dequantize` and `cast`: byte for byte what the math crate's one-shot
//! functions give, through files and `-` pipes, on inputs that are not a whole number of chunks
//! (`BITBUDGET_STREAM_CHUNK` makes chunks of under 1 KB), and in bounded memory.

use bitbudget_math::format::cast::cast_bytes;
use bitbudget_math::format::{FormatId, Overflow};
use bitbudget_math::quant::codec::{dequantize, nf4_double_quant_bytes, quantize};
use bitbudget_math::quant::generate::{generate, Distribution};
use bitbudget_math::quant::scheme::Scheme;
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Chunk size for these tests, in bytes: every scheme's chunk is then a few blocks.
const SMALL_CHUNK: &str = "1000";

/// The binary with `args`, stdin and stdout piped.
fn command(args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_bitbudget"));
    c.args(args).stdin(Stdio::piped()).stdout(Stdio::piped());
    c
}

/// Runs the binary with small chunks, `stdin` on its standard input.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = command(args)
        .env("BITBUDGET_STREAM_CHUNK", SMALL_CHUNK)
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let mut input = child.stdin.take().unwrap();
    let data = stdin.to_vec();
    // A run that does not read stdin closes it early: that write error is not the test's.
    let feeder = std::thread::spawn(move || input.write_all(&data).is_ok());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

fn ok(out: Output) -> Vec<u8> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// A scratch directory for one test, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("bitbudget-stream-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn file(&self, name: &str, bytes: Option<&[u8]>) -> String {
        let path = self.0.join(name);
        if let Some(bytes) = bytes {
            std::fs::write(&path, bytes).unwrap();
        }
        path.to_str().unwrap().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn le(x: &[f32]) -> Vec<u8> {
    x.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// 64 × 80 values: whole blocks of 8, 32, 64 and the K-quants' 256, but not a whole number of
/// any chunk, with an outlier and a zero block.
fn values() -> Vec<f32> {
    let mut x = generate(Distribution::Laplace, 80, 64, 0.05, 16);
    x[1000] = 9.5;
    x[64..128].fill(0.0);
    x
}

/// `quantize` of `x` through a file and through pipes, then `dequantize` back the same two ways.
fn both_ways(dir: &Scratch, flags: &[&str], x: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let input = dir.file("x.f32", Some(x));
    let bytes = dir.file("x.q", None);
    let mut args = vec!["quantize"];
    args.extend_from_slice(flags);
    let from_pipe = ok(run(&[args.as_slice(), &["-", "-"]].concat(), x));
    ok(run(
        &[args.as_slice(), &[input.as_str(), bytes.as_str()]].concat(),
        b"",
    ));
    assert_eq!(
        std::fs::read(&bytes).unwrap(),
        from_pipe,
        "{flags:?}: file and pipe"
    );
    let mut args = vec!["dequantize"];
    args.extend(flags.iter().filter(|f| **f != "--double-quant"));
    let back = dir.file("y.f32", None);
    let y = ok(run(&[args.as_slice(), &["-", "-"]].concat(), &from_pipe));
    ok(run(
        &[args.as_slice(), &[bytes.as_str(), back.as_str()]].concat(),
        b"",
    ));
    assert_eq!(std::fs::read(&back).unwrap(), y, "{flags:?}: file and pipe");
    (from_pipe, y)
}

#[test]
fn every_scheme_streams_the_one_shot_bytes_through_files_and_pipes() {
    let dir = Scratch::new("schemes");
    let x = values();
    for s in Scheme::ALL {
        let block = match s {
            Scheme::Nf4 => 8,
            // 5056 values: 79 rows of 64 columns (a band of 128 rows, short).
            Scheme::Fp8Block => 64,
            _ => s.default_block(),
        };
        let block_arg = block.to_string();
        let mut flags = vec!["--scheme", s.name()];
        if s.needs_columns() {
            flags.extend(["--cols", &block_arg]);
        } else if !matches!(s, Scheme::F8E4M3 | Scheme::F8E5M2) {
            flags.extend(["--block", &block_arg]);
        }
        let (bytes, y) = both_ways(&dir, &flags, &le(&x));
        let expected = quantize(s, &x, block).unwrap();
        assert_eq!(bytes, expected, "{s}: quantized bytes");
        assert_eq!(
            y,
            le(&dequantize(s, &expected, block).unwrap()),
            "{s}: dequantized"
        );
    }
}

#[test]
fn nf4_double_quant_streams_groups_of_256_blocks() {
    let dir = Scratch::new("nf4dq");
    // 5056 values in blocks of 8: two whole groups of 256 blocks and a short one.
    let x = values();
    let flags = ["--scheme", "nf4", "--block", "8", "--double-quant"];
    let (bytes, _) = both_ways(&dir, &flags, &le(&x));
    assert_eq!(bytes, nf4_double_quant_bytes(&x, 8).unwrap());
}

#[test]
fn cast_streams_the_one_shot_bytes() {
    let dir = Scratch::new("cast");
    let x = le(&values());
    for (from, to, id_from, id_to) in [
        ("f32", "bf16", FormatId::F32, FormatId::Bf16),
        ("f32", "f8e4m3", FormatId::F32, FormatId::F8E4M3),
    ] {
        let expected = cast_bytes(&x, id_from, id_to, Overflow::Native).unwrap();
        let out = ok(run(&["cast", "--from", from, "--to", to, "-", "-"], &x));
        assert_eq!(out, expected, "{from} -> {to}");
        let back = cast_bytes(&expected, id_to, id_from, Overflow::Native).unwrap();
        let input = dir.file("c.in", Some(&expected));
        let output = dir.file("c.out", None);
        ok(run(
            &["cast", "--from", to, "--to", from, &input, &output],
            b"",
        ));
        assert_eq!(std::fs::read(&output).unwrap(), back, "{to} -> {from}");
    }
}

#[test]
fn ragged_input_gives_the_one_shot_message_and_leaves_no_output_file() {
    let dir = Scratch::new("ragged");
    // 33 values: a whole first chunk of blocks, then a partial block.
    let x = le(&vec![0.5f32; 32 * 33 + 1]);
    let input = dir.file("r.f32", Some(&x));
    let output = dir.file("r.q", None);
    for source in [input.as_str(), "-"] {
        let out = run(&["quantize", "--scheme", "q8_0", source, &output], &x);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "{source}: 1057 weights is not a whole number of 32-weight blocks"
            )),
            "{err}"
        );
        assert!(
            !std::path::Path::new(&output).exists(),
            "{source}: output removed"
        );
    }
    let out = run(
        &["cast", "--from", "f32", "--to", "f16", "-", &output],
        &x[..4 * 300 + 2],
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("1202 bytes, not a whole number of"));
    let out = run(&["dequantize", "--scheme", "f8e4m3", "-", "-"], &[1, 2]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("too short for a f8e4m3 tensor"));
}

/// Peak resident memory of a run that quantizes `mib` MiB of zeros from stdin with Q8_0, sampled
/// from /proc while it runs, in KiB.
#[cfg(target_os = "linux")]
fn peak_rss_kib(mib: usize) -> u64 {
    let mut child = command(&["quantize", "--scheme", "q8_0", "-", "-"])
        .stderr(Stdio::null())
        .spawn()
        .expect("runs");
    let mut input = child.stdin.take().unwrap();
    let feeder = std::thread::spawn(move || {
        let block = vec![0u8; 1 << 20];
        for _ in 0..mib {
            input.write_all(&block).unwrap();
        }
    });
    let mut output = child.stdout.take().unwrap();
    let drain = std::thread::spawn(move || std::io::copy(&mut output, &mut std::io::sink()));
    let status = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        let hwm = std::fs::read_to_string(&status).ok().and_then(|s| {
            let line = s.lines().find(|l| l.starts_with("VmHWM:"))?.to_string();
            line.split_whitespace().nth(1)?.parse::<u64>().ok()
        });
        peak = peak.max(hwm.unwrap_or(0));
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    feeder.join().unwrap();
    drain.join().unwrap().unwrap();
    peak
}

#[cfg(target_os = "linux")]
#[test]
fn quantize_memory_does_not_grow_with_the_input() {
    // One shot held the input twice (bytes, then f32): over 2 × 96 MiB here.
    let (small, large) = (peak_rss_kib(16), peak_rss_kib(96));
    assert!(small > 0 && large > 0, "VmHWM was read");
    eprintln!("peak RSS: {small} KiB for 16 MiB in, {large} KiB for 96 MiB in");
    assert!(
        large < small + 16 * 1024,
        "peak RSS {small} KiB for 16 MiB, {large} KiB for 96 MiB"
    );
}
