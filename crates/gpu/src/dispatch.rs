//! Running kernels: chunk sizes within the adapter's limits, dispatches, and readback.

use crate::context::{words_to_bytes, Buffers, Gpu, GpuError, Role};
use crate::layout::Layout;
use crate::shaders::Family;
use crate::stamps::Stamps;
use crate::tables::Table;

/// Invocations per workgroup (`WORKGROUP` in common.wgsl).
const WORKGROUP: u32 = 64;

/// The uniform `Params` of common.wgsl: count, n, block, variant, scalar, stride, first (two
/// halves), consts.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Params {
    /// Invocations that do work.
    pub count: u32,
    /// Weights (or values) in the chunk.
    pub n: u32,
    /// Weights per block.
    pub block: u32,
    /// Scheme variant.
    pub variant: u32,
    /// An f32 bit pattern (FP8 scale, NF4 double-quantization mean).
    pub scalar: u32,
    /// Words per block of a strided per-block array: the dequantize kernels' `headers` (2 when
    /// split on the host, 4 when they are the quantize kernels' `blocks`), `double_quantize`'s
    /// input and output (1 or 4).
    pub stride: u32,
    /// The tensor index of the chunk's first weight (the FP4 kernels' stochastic rounding).
    pub first: u64,
    /// Format facts, or the FP4 options (`tables::kernel_consts`).
    pub consts: [u32; 4],
}

impl Params {
    fn bytes(&self) -> Vec<u8> {
        let [a, b, c, d] = self.consts;
        let words = [
            self.count,
            self.n,
            self.block,
            self.variant,
            self.scalar,
            self.stride,
            self.first as u32,
            (self.first >> 32) as u32,
            a,
            b,
            c,
            d,
        ];
        words_to_bytes(&words)
    }
}

/// The largest number of `unit`-weight units per chunk such that every buffer of a chunk fits in
/// one storage binding (`bytes_per_unit` is the largest buffer's bytes per unit) and every
/// dispatch fits in the workgroup grid (at most `threads_per_unit` invocations per unit), capped
/// by [`Gpu::with_chunk_limit`], and a multiple of `together` units (at least `together`, even
/// past the cap; `TooLarge` when the adapter's limits cannot hold them).
pub(crate) fn chunk_units(
    gpu: &Gpu,
    unit: usize,
    bytes_per_unit: u64,
    threads_per_unit: u64,
    together: usize,
) -> Result<usize, GpuError> {
    let limits = gpu.limits();
    let binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let per_dim = limits.max_compute_workgroups_per_dimension as u64;
    let threads = (per_dim * per_dim * WORKGROUP as u64).min(u32::MAX as u64);
    let fits = (binding / bytes_per_unit.max(1)).min(threads / threads_per_unit.max(1));
    let together = together.max(1) as u64;
    if fits < together {
        return Err(GpuError::TooLarge(format!(
            "{together} blocks of {unit} weights need {} bytes in one buffer, more than this \
             adapter's largest storage binding ({binding} bytes)",
            together * bytes_per_unit
        )));
    }
    let capped = match gpu.chunk_limit() {
        Some(limit) => fits.min((limit / unit.max(1)).max(1) as u64),
        None => fits,
    };
    Ok((capped / together).max(1) as usize * together as usize)
}

/// Workgroups for `threads` invocations as a 2-D grid within the per-dimension limit.
fn grid(gpu: &Gpu, threads: u32) -> (u32, u32) {
    let groups = threads.div_ceil(WORKGROUP).max(1);
    let x = groups.min(gpu.limits().max_compute_workgroups_per_dimension);
    (x, groups.div_ceil(x))
}

/// One dispatch to record: the entry point, its parameters and the five bound buffers.
pub(crate) struct Pass<'a> {
    /// Kernel family.
    pub family: Family,
    /// Entry point.
    pub entry: &'static str,
    /// Parameters (written to `params`).
    pub params: Params,
    /// The uniform buffer that holds them.
    pub params_buffer: &'a wgpu::Buffer,
    /// Bindings 1 on, in order (four, or six for the measuring pass).
    pub bindings: &'a [&'a wgpu::Buffer],
}

/// Records `passes` into one command buffer, then copies `copies` (source, destination, bytes)
/// and submits; the submission's index is what [`read`] waits for.
pub(crate) fn submit(
    gpu: &Gpu,
    passes: &[Pass<'_>],
    copies: &[(&wgpu::Buffer, &wgpu::Buffer, u64)],
) -> wgpu::SubmissionIndex {
    submit_stamped(gpu, passes, copies, None)
}

/// [`submit`], writing a timestamp into query 0 of `stamps` as the first pass begins and into
/// query 1 as the last ends, then resolving both into `stamps`' resolve buffer and copying them
/// to its mappable one.
pub(crate) fn submit_stamped(
    gpu: &Gpu,
    passes: &[Pass<'_>],
    copies: &[(&wgpu::Buffer, &wgpu::Buffer, u64)],
    stamps: Option<&Stamps>,
) -> wgpu::SubmissionIndex {
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("bitbudget encoder"),
        });
    for (k, pass) in passes.iter().enumerate() {
        gpu.queue
            .write_buffer(pass.params_buffer, 0, &pass.params.bytes());
        let pipeline = {
            let mut cache = gpu.lock();
            gpu.pipeline(&mut cache, pass.family, pass.entry)
        };
        let label = format!(
            "bitbudget bind group: {} {}",
            pass.family.name(),
            pass.entry
        );
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: pass.params_buffer.as_entire_binding(),
        }];
        for (i, b) in pass.bindings.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: i as u32 + 1,
                resource: b.as_entire_binding(),
            });
        }
        let bind_group = gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(&label),
            layout: gpu.layouts(pass.family).0,
            entries: &entries,
        });
        let (x, y) = grid(gpu, pass.params.count);
        let timestamp_writes = stamps.map(|st| wgpu::ComputePassTimestampWrites {
            query_set: &st.queries,
            beginning_of_pass_write_index: (k == 0).then_some(0),
            end_of_pass_write_index: (k + 1 == passes.len()).then_some(1),
        });
        let mut cpass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(&label),
            timestamp_writes,
        });
        cpass.set_pipeline(&pipeline);
        cpass.set_bind_group(0, &bind_group, &[]);
        cpass.dispatch_workgroups(x, y, 1);
    }
    for (from, to, bytes) in copies {
        encoder.copy_buffer_to_buffer(from, 0, to, 0, bytes.next_multiple_of(4));
    }
    if let Some(st) = stamps.filter(|_| !passes.is_empty()) {
        encoder.resolve_query_set(&st.queries, 0..2, &st.resolve, 0);
        encoder.copy_buffer_to_buffer(&st.resolve, 0, &st.read, 0, 16);
    }
    gpu.queue.submit([encoder.finish()])
}

/// Maps the first `bytes` of each mappable buffer, waits for submission `after` (natively
/// `poll`, which leaves later submissions running; in the browser the event loop completes the
/// mapping), and returns copies of their contents.
pub(crate) async fn read(
    gpu: &Gpu,
    buffers: &[(&wgpu::Buffer, u64)],
    after: wgpu::SubmissionIndex,
) -> Result<Vec<Vec<u8>>, GpuError> {
    let mut waiting = Vec::new();
    for (buffer, bytes) in buffers {
        let (tx, rx) = futures_channel::oneshot::channel();
        buffer
            .slice(..bytes.next_multiple_of(4).max(4))
            .map_async(wgpu::MapMode::Read, move |r| {
                // The receiver only goes away when this call has already failed.
                let _ = tx.send(r);
            });
        waiting.push(rx);
    }
    // Natively this blocks until the submission is done and runs the callbacks; on the web it
    // does nothing and the mapping completes from the browser's event loop.
    let wait = wgpu::PollType::Wait {
        submission_index: Some(after),
        timeout: None,
    };
    gpu.device
        .poll(wait)
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    let mut out = Vec::new();
    for ((buffer, bytes), rx) in buffers.iter().zip(waiting) {
        rx.await
            .map_err(|_| GpuError::Readback("the mapping callback was dropped".into()))?
            .map_err(|e| GpuError::Readback(e.to_string()))?;
        let data = {
            let slice = buffer.slice(..bytes.next_multiple_of(4).max(4));
            let view = slice
                .get_mapped_range()
                .map_err(|e| GpuError::Readback(e.to_string()))?;
            view[..*bytes as usize].to_vec()
        };
        buffer.unmap();
        out.push(data);
    }
    Ok(out)
}

/// The first `bytes` of one mappable buffer as little-endian words, once submission `after`
/// has filled it (see [`read`]).
pub(crate) async fn read_words(
    gpu: &Gpu,
    (buffer, bytes, after): (wgpu::Buffer, u64, wgpu::SubmissionIndex),
) -> Result<Vec<u32>, GpuError> {
    let data = read(gpu, &[(&buffer, bytes)], after).await?;
    Ok(words(&data[0]))
}

/// The table buffer of a scheme's kernels.
pub(crate) fn table(gpu: &Gpu, table: Table) -> wgpu::Buffer {
    let mut cache = gpu.lock();
    gpu.table(&mut cache, table)
}

/// f32 weights as little-endian bytes.
pub(crate) fn f32_bytes(x: &[f32]) -> Vec<u8> {
    x.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect()
}

/// Little-endian u32 words of `bytes` (a whole number of words).
pub(crate) fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Appends the stored bytes of `units` blocks: each block's header (the first
/// `layout.header_bytes` bytes of its first two `blocks` words) then its code bytes.
pub(crate) fn assemble(
    layout: &Layout,
    blocks: &[u8],
    codes: &[u8],
    units: usize,
    out: &mut Vec<u8>,
) {
    if layout.header_bytes == 0 {
        out.extend_from_slice(&codes[..units * layout.code_bytes]);
        return;
    }
    for u in 0..units {
        out.extend_from_slice(&blocks[16 * u..16 * u + layout.header_bytes]);
        out.extend_from_slice(&codes[u * layout.code_bytes..(u + 1) * layout.code_bytes]);
    }
}

/// Splits stored blocks into the dequantize kernels' inputs: headers (two words per block, the
/// header bytes zero-padded) and the code bytes back to back (zero-padded to whole words).
pub(crate) fn split(layout: &Layout, stored: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let stride = layout.stride();
    let units = stored.len() / stride;
    let mut headers = vec![0u8; (units * 8).max(4)];
    let mut codes = Vec::with_capacity(units * layout.code_bytes + 4);
    if layout.header_bytes == 0 {
        codes.extend_from_slice(stored);
    } else {
        for (u, block) in stored.chunks_exact(stride).enumerate() {
            headers[8 * u..8 * u + layout.header_bytes]
                .copy_from_slice(&block[..layout.header_bytes]);
            codes.extend_from_slice(&block[layout.header_bytes..]);
        }
    }
    codes.resize(codes.len().next_multiple_of(4).max(4), 0);
    (headers, codes)
}

/// Returns a call's buffers to the cache (also on error paths).
pub(crate) struct CheckedOut<'a> {
    gpu: &'a Gpu,
    /// The buffers.
    pub set: Option<Buffers>,
}

impl<'a> CheckedOut<'a> {
    /// Takes the cached buffers out for one call.
    pub fn new(gpu: &'a Gpu) -> Self {
        CheckedOut {
            gpu,
            set: Some(gpu.check_out()),
        }
    }

    /// The buffer for `role` in slot 0, at least `bytes` long.
    pub fn get(&mut self, role: Role, bytes: u64) -> wgpu::Buffer {
        self.get_in(0, role, bytes)
    }

    /// The buffer for `role` in `slot` (see [`Overlap::slot`]), at least `bytes` long.
    pub fn get_in(&mut self, slot: usize, role: Role, bytes: u64) -> wgpu::Buffer {
        let set = self.set.as_mut().expect("present until dropped");
        self.gpu.buffer(set, (role, slot), bytes)
    }
}

impl Drop for CheckedOut<'_> {
    fn drop(&mut self) {
        if let Some(set) = self.set.take() {
            self.gpu.check_in(set);
        }
    }
}

/// Double buffering of a chunked call: chunk k's buffers come from slot k % 2, and a chunk's
/// readback is awaited only once the next chunk has been written and submitted, so the device
/// uploads and computes chunk k + 1 while chunk k is mapped and copied out. The caller loops:
/// start chunk k in [`Overlap::slot`]`(k)`, hand it to [`Overlap::started`] and finish what that
/// returns, then finish [`Overlap::last`]. Without overlap (a timed call, whose phases must not
/// mix), every chunk uses slot 0 and is finished at once.
pub(crate) struct Overlap<J> {
    overlap: bool,
    pending: Option<J>,
}

impl<J> Overlap<J> {
    /// Chunks overlapped (`true`) or one after the other.
    pub fn new(overlap: bool) -> Self {
        Overlap {
            overlap,
            pending: None,
        }
    }

    /// The buffer slot of chunk `k`.
    pub fn slot(&self, k: usize) -> usize {
        if self.overlap {
            k % 2
        } else {
            0
        }
    }

    /// Records that `job` (a chunk's submitted work) has started; returns the chunk to finish
    /// now: the one started before it (none for the first), or `job` itself without overlap.
    pub fn started(&mut self, job: J) -> Option<J> {
        if self.overlap {
            self.pending.replace(job)
        } else {
            Some(job)
        }
    }

    /// The chunk still to finish after the last has started.
    pub fn last(self) -> Option<J> {
        self.pending
    }
}
