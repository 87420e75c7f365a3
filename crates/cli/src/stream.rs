//! Streaming a file through a transform in bounded memory, on every core: a reader thread fills
//! chunks of whole units (blocks), the calling thread splits each chunk over the cores, and a
//! writer thread writes the results in order while the next chunk is read and transformed.
//!
//! Memory is a few chunks (reading, transforming, writing) whatever the input size.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Input bytes per chunk when `BITBUDGET_STREAM_CHUNK` is not set: 4 MiB, large enough that
/// spreading a chunk over the cores costs little, small enough to stay in the caches' reach.
pub const CHUNK_BYTES: usize = 4 << 20;

/// The chunk size: `BITBUDGET_STREAM_CHUNK` (bytes, for tests that need several chunks from a
/// small input) or [`CHUNK_BYTES`]; rounded down to whole units, at least one unit.
pub fn chunk_bytes(unit: usize) -> usize {
    let wanted = std::env::var("BITBUDGET_STREAM_CHUNK")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
        .unwrap_or(CHUNK_BYTES);
    (wanted / unit.max(1)).max(1) * unit.max(1)
}

/// Where the bytes come from: a file (whose length is known up front) or stdin.
pub struct Source {
    path: String,
    reader: Box<dyn Read + Send>,
    len: Option<u64>,
}

impl Source {
    /// Opens `path` (`-` = stdin); the error names the path.
    pub fn open(path: &str) -> Result<Self, String> {
        if path == "-" {
            return Ok(Self {
                path: path.into(),
                reader: Box::new(std::io::stdin()),
                len: None,
            });
        }
        let file = File::open(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        let meta = file
            .metadata()
            .map_err(|e| format!("cannot read {path}: {e}"))?;
        if meta.is_dir() {
            return Err(format!("cannot read {path}: it is a directory"));
        }
        Ok(Self {
            path: path.into(),
            len: meta.is_file().then_some(meta.len()),
            reader: Box::new(file),
        })
    }

    /// The byte length when known before reading (a regular file), so that a ragged input can be
    /// refused before anything is written.
    pub fn len(&self) -> Option<u64> {
        self.len
    }

    /// The path as given (`-` for stdin).
    pub fn path(&self) -> &str {
        &self.path
    }

    /// Reads exactly `n` bytes (fewer only at the end of the input).
    pub fn read_up_to(&mut self, n: usize) -> Result<Vec<u8>, String> {
        let mut buf = Vec::new();
        fill(&mut self.reader, &mut buf, n).map_err(|e| self.read_error(e))?;
        Ok(buf)
    }

    fn read_error(&self, e: std::io::Error) -> String {
        match self.path.as_str() {
            "-" => format!("cannot read stdin: {e}"),
            p => format!("cannot read {p}: {e}"),
        }
    }
}

/// Appends up to `n` bytes from `r` to `buf` (fewer only at the end of the input).
fn fill(r: &mut dyn Read, buf: &mut Vec<u8>, n: usize) -> std::io::Result<()> {
    let start = buf.len();
    buf.resize(start + n, 0);
    let mut got = 0;
    while got < n {
        match r.read(&mut buf[start + got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    buf.truncate(start + got);
    Ok(())
}

/// Where the bytes go: a file (created on the first write, removed again if the command fails)
/// or stdout.
pub struct Sink {
    path: String,
    writer: Option<BufWriter<Box<dyn Write + Send>>>,
}

impl Sink {
    /// A sink for `path` (`-` = stdout); nothing is created until [`Sink::write`].
    pub fn new(path: &str) -> Self {
        Self {
            path: path.into(),
            writer: None,
        }
    }

    /// Writes `bytes`, creating (truncating) the file on the first call.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), String> {
        if self.writer.is_none() {
            let inner: Box<dyn Write + Send> = if self.path == "-" {
                Box::new(std::io::stdout())
            } else {
                Box::new(File::create(&self.path).map_err(|e| self.write_error(e))?)
            };
            self.writer = Some(BufWriter::with_capacity(1 << 16, inner));
        }
        let w = self.writer.as_mut().expect("opened above");
        w.write_all(bytes).map_err(|e| write_error(&self.path, e))
    }

    /// Flushes; an output that was never written is created empty (as writing nothing would).
    pub fn finish(mut self) -> Result<(), String> {
        self.write(&[])?;
        let w = self.writer.as_mut().expect("opened by write");
        w.flush().map_err(|e| write_error(&self.path, e))
    }

    /// Removes a partly written output file after an error (stdout cannot be taken back).
    pub fn abandon(self) {
        if self.writer.is_some() && self.path != "-" {
            drop(self.writer);
            let _ = std::fs::remove_file(&self.path);
        }
    }

    fn write_error(&self, e: std::io::Error) -> String {
        write_error(&self.path, e)
    }
}

fn write_error(path: &str, e: std::io::Error) -> String {
    match path {
        "-" => format!("cannot write stdout: {e}"),
        p => format!("cannot write {p}: {e}"),
    }
}

/// A transform of whole units: every `unit_in` input bytes become exactly `unit_out` output
/// bytes, so a chunk's output can be split between threads before they run.
pub struct Units {
    /// Input bytes per unit (a block of f32 values, one element, ...).
    pub unit_in: usize,
    /// Output bytes per unit.
    pub unit_out: usize,
    /// Units that chunks and threads' shares are whole multiples of (1 for most transforms; NF4
    /// double quantization needs groups of 256 blocks). The input's end may cut a group short.
    pub group: usize,
}

/// Streams the rest of `src` through `transform` into `sink`, chunk by chunk, each chunk's whole
/// units spread over every core. `transform(input, output)` gets a whole number of units and an
/// output exactly `units × unit_out` long, and must fill it. Returns the input bytes read in all
/// and the bytes of the last partial unit (left untransformed, for the caller to report).
pub fn pipe<F>(
    src: &mut Source,
    sink: &mut Sink,
    units: &Units,
    transform: F,
) -> Result<(u64, usize), String>
where
    F: Fn(&[u8], &mut [u8]) -> Result<(), String> + Sync,
{
    let chunk = chunk_bytes(units.unit_in * units.group.max(1));
    let (full_tx, full_rx) = sync_channel::<Vec<u8>>(1);
    let (out_tx, out_rx) = sync_channel::<Vec<u8>>(1);
    let (free_in_tx, free_in_rx) = sync_channel::<Vec<u8>>(2);
    let (free_out_tx, free_out_rx) = sync_channel::<Vec<u8>>(2);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|s| {
        let reader = s.spawn(move || read_chunks(src, chunk, full_tx, free_in_rx));
        let writer = s.spawn(move || write_chunks(sink, out_rx, free_out_tx));
        let (mut total, mut tail, mut failed) = (0u64, 0usize, Ok(()));
        for input in full_rx.iter() {
            let whole = input.len() / units.unit_in * units.unit_in;
            let mut out = free_out_rx.try_recv().unwrap_or_default();
            out.resize(whole / units.unit_in * units.unit_out, 0);
            failed = spread(&input[..whole], &mut out, units, threads, &transform);
            (total, tail) = (total + input.len() as u64, input.len() - whole);
            if failed.is_err() || out_tx.send(out).is_err() {
                break;
            }
            let _ = free_in_tx.try_send(input);
        }
        drop(out_tx);
        drop(full_rx);
        let read = reader.join().expect("reader thread");
        let written = writer.join().expect("writer thread");
        read.and(written).and(failed).map(|()| (total, tail))
    })
}

/// The reader thread: chunks of `chunk` bytes (the last may be shorter) until the input ends.
fn read_chunks(
    src: &mut Source,
    chunk: usize,
    full: SyncSender<Vec<u8>>,
    free: Receiver<Vec<u8>>,
) -> Result<(), String> {
    loop {
        let mut buf = free.try_recv().unwrap_or_default();
        buf.clear();
        fill(&mut src.reader, &mut buf, chunk).map_err(|e| src.read_error(e))?;
        let last = buf.len() < chunk;
        if !buf.is_empty() && full.send(buf).is_err() {
            return Ok(());
        }
        if last {
            return Ok(());
        }
    }
}

/// The writer thread: writes chunks in order, recycling their buffers.
fn write_chunks(
    sink: &mut Sink,
    out: Receiver<Vec<u8>>,
    free: SyncSender<Vec<u8>>,
) -> Result<(), String> {
    for bytes in out.iter() {
        sink.write(&bytes)?;
        let _ = free.try_send(bytes);
    }
    Ok(())
}

/// Runs `transform` on `threads` runs of whole units of `input` at once, each writing its own
/// part of `out`.
fn spread<F>(
    input: &[u8],
    out: &mut [u8],
    units: &Units,
    threads: usize,
    transform: &F,
) -> Result<(), String>
where
    F: Fn(&[u8], &mut [u8]) -> Result<(), String> + Sync,
{
    let count = input.len() / units.unit_in;
    let group = units.group.max(1);
    let per_thread = count
        .div_ceil(threads.max(1))
        .next_multiple_of(group)
        .max(group);
    if threads <= 1 || count <= per_thread {
        return transform(input, out);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = input
            .chunks(per_thread * units.unit_in)
            .zip(out.chunks_mut(per_thread * units.unit_out))
            .map(|(i, o)| s.spawn(move || transform(i, o)))
            .collect();
        handles
            .into_iter()
            .try_for_each(|h| h.join().expect("worker thread"))
    })
}

/// Decodes little-endian f32 values from `bytes` (a multiple of 4 long) into `out`, replacing
/// its contents.
pub fn f32s_from_le(bytes: &[u8], out: &mut Vec<f32>) {
    out.clear();
    out.extend(
        bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
}

/// Runs `per_run(values, output)` over runs of about 16 Ki values (whole units of `unit_values`
/// values each, `unit_out` output bytes each) of little-endian f32 `input`, so the decoded
/// values stay in the L1/L2 cache.
pub fn over_f32_runs(
    input: &[u8],
    out: &mut [u8],
    unit_values: usize,
    unit_out: usize,
    mut per_run: impl FnMut(&[f32], &mut [u8]) -> Result<(), String>,
) -> Result<(), String> {
    let units_per_run = ((16 << 10) / unit_values.max(1)).max(1);
    let mut values = Vec::with_capacity(units_per_run * unit_values);
    for (i, o) in input
        .chunks(units_per_run * unit_values * 4)
        .zip(out.chunks_mut(units_per_run * unit_out))
    {
        f32s_from_le(i, &mut values);
        per_run(&values, o)?;
    }
    Ok(())
}
