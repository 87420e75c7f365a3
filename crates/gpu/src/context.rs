//! The [`Gpu`] context: one adapter, device and queue, with the pipelines, tables and buffers that
//! every call reuses.

use crate::shaders::Family;
use crate::tables::Table;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard};

/// Why a GPU call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GpuError {
    /// No adapter could be had; the message names what was tried.
    NoAdapter(String),
    /// The adapter refused a device.
    NoDevice(String),
    /// The input does not fit the scheme (length, block size, byte count).
    Input(String),
    /// The input needs more than the adapter's limits allow (e.g. one block larger than the
    /// largest storage binding).
    TooLarge(String),
    /// Reading results back failed (device lost, mapping error).
    Readback(String),
}

impl fmt::Display for GpuError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GpuError::NoAdapter(m) => write!(f, "no GPU adapter: {m}"),
            GpuError::NoDevice(m) => write!(f, "the GPU adapter gave no device: {m}"),
            GpuError::Input(m) | GpuError::TooLarge(m) => f.write_str(m),
            GpuError::Readback(m) => write!(f, "reading GPU results back failed: {m}"),
        }
    }
}

impl std::error::Error for GpuError {}

/// The buffers a call binds, by role; each is grown when a call needs more and reused after.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Role {
    /// Quantize: the weights. Dequantize: the block headers.
    Input,
    /// Dequantize: the packed codes.
    InputCodes,
    /// Quantize: per-block words (scale header and internal values).
    Blocks,
    /// Quantize: packed codes. Dequantize: the weights.
    Output,
    /// Mappable copy of `Blocks`.
    ReadBlocks,
    /// Mappable copy of `Output`.
    ReadOutput,
    /// Uniform parameters of the k-th dispatch of a submission (each dispatch of one submission
    /// needs its own: the queue writes them all before the submission runs).
    Params(u8),
    /// Measure: the original values (when they are not the first values of the weights).
    Original,
    /// Measure: the dequantized values.
    Dequantized,
    /// Measure, NF4 with double quantization: the per-block words with each absmax replaced by
    /// its reconstruction.
    Reconstructed,
    /// Measure: the value bins' order keys.
    Thresholds,
    /// Measure: counters and histograms.
    Stats,
    /// Measure: per-tile results.
    Tiles,
    /// Measure: per-group running maxima.
    Partials,
    /// Mappable copy of `Stats`.
    ReadStats,
    /// Mappable copy of `Tiles`.
    ReadTiles,
}

impl Role {
    fn label(self) -> &'static str {
        match self {
            Role::Input => "bitbudget buffer: input (weights or block headers)",
            Role::InputCodes => "bitbudget buffer: input codes",
            Role::Blocks => "bitbudget buffer: per-block words",
            Role::Output => "bitbudget buffer: output (codes or weights)",
            Role::ReadBlocks => "bitbudget buffer: per-block words readback",
            Role::ReadOutput => "bitbudget buffer: output readback",
            Role::Params(_) => "bitbudget buffer: params of a dispatch",
            Role::Original => "bitbudget buffer: original values (measure)",
            Role::Dequantized => "bitbudget buffer: dequantized values (measure)",
            Role::Reconstructed => "bitbudget buffer: double-quantized block words (measure)",
            Role::Thresholds => "bitbudget buffer: value bin starts (measure)",
            Role::Stats => "bitbudget buffer: counters and histograms (measure)",
            Role::Tiles => "bitbudget buffer: per-tile results (measure)",
            Role::Partials => "bitbudget buffer: group maxima (measure)",
            Role::ReadStats => "bitbudget buffer: counters and histograms readback",
            Role::ReadTiles => "bitbudget buffer: per-tile results readback",
        }
    }

    fn usage(self) -> wgpu::BufferUsages {
        use wgpu::BufferUsages as U;
        match self {
            Role::Input
            | Role::InputCodes
            | Role::Original
            | Role::Thresholds
            | Role::Dequantized => U::STORAGE | U::COPY_DST,
            Role::Blocks
            | Role::Output
            | Role::Stats
            | Role::Tiles
            | Role::Partials
            | Role::Reconstructed => U::STORAGE | U::COPY_SRC | U::COPY_DST,
            Role::ReadBlocks | Role::ReadOutput | Role::ReadStats | Role::ReadTiles => {
                U::MAP_READ | U::COPY_DST
            }
            Role::Params(_) => U::UNIFORM | U::COPY_DST,
        }
    }
}

/// One call's buffers, by role and slot (see [`Gpu::check_out`]): a call that streams chunks
/// alternates between two slots, so that one chunk's buffers are read back while the next
/// chunk's are written and computed.
pub(crate) struct Buffers(HashMap<(Role, usize), wgpu::Buffer>);

/// What a [`Gpu`] creates once and reuses.
#[derive(Default)]
pub(crate) struct Cache {
    modules: HashMap<Family, wgpu::ShaderModule>,
    pipelines: HashMap<(Family, &'static str), wgpu::ComputePipeline>,
    tables: HashMap<Table, wgpu::Buffer>,
    buffers: HashMap<(Role, usize), wgpu::Buffer>,
}

/// A WebGPU adapter, its device and queue, and the pipelines, tables and buffers built on them
/// (created on first use, then reused). Every host function takes a `&Gpu`, so callers and tests
/// bring their own. A clone is another handle on the same device, queue and caches (a pipeline
/// compiled for one is there for all), with a chunk cap of its own ([`Gpu::with_chunk_limit`]).
#[derive(Clone)]
pub struct Gpu {
    pub(crate) device: wgpu::Device,
    pub(crate) queue: wgpu::Queue,
    info: wgpu::AdapterInfo,
    limits: wgpu::Limits,
    chunk_limit: Option<usize>,
    quantize_layout: wgpu::BindGroupLayout,
    dequantize_layout: wgpu::BindGroupLayout,
    measure_layout: wgpu::BindGroupLayout,
    quantize_pipeline_layout: wgpu::PipelineLayout,
    dequantize_pipeline_layout: wgpu::PipelineLayout,
    measure_pipeline_layout: wgpu::PipelineLayout,
    cache: Arc<Mutex<Cache>>,
}

/// One storage binding entry of the shared layouts.
fn storage(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A bind group layout: the uniform `Params` at binding 0, then one storage binding per entry
/// of `read_only` (read-only or read-write), from binding 1.
fn bind_group_layout(
    device: &wgpu::Device,
    label: &str,
    read_only: &[bool],
) -> wgpu::BindGroupLayout {
    let mut entries = vec![uniform()];
    entries.extend((1..).zip(read_only).map(|(b, ro)| storage(b, *ro)));
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

/// Binding 0: the uniform `Params`.
fn uniform() -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding: 0,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl Gpu {
    /// Finds an adapter (backends from `WGPU_BACKEND` when set; natively this crate is built with
    /// Vulkan only, in the browser with WebGPU only) and opens a device with the adapter's own
    /// limits. Errors name the backends that were tried.
    pub async fn new() -> Result<Gpu, GpuError> {
        let desc = wgpu::InstanceDescriptor::new_without_display_handle_from_env();
        let backends = desc.backends;
        let instance = wgpu::Instance::new(desc);
        let adapter = instance
            .request_adapter(&wgpu::RequestAdapterOptions {
                power_preference: wgpu::PowerPreference::HighPerformance,
                ..Default::default()
            })
            .await
            .map_err(|e| {
                GpuError::NoAdapter(format!(
                    "tried backends {backends:?} ({e}); natively install a Vulkan driver \
                     (Mesa lavapipe: mesa-vulkan-drivers) and set WGPU_BACKEND=vulkan"
                ))
            })?;
        let limits = adapter.limits();
        let info = adapter.get_info();
        // Timestamp queries only time the benchmark's kernels: taken when offered, never needed.
        let features = adapter.features() & wgpu::Features::TIMESTAMP_QUERY;
        let (device, queue) = adapter
            .request_device(&wgpu::DeviceDescriptor {
                label: Some("bitbudget device"),
                required_features: features,
                required_limits: limits.clone(),
                ..Default::default()
            })
            .await
            .map_err(|e| GpuError::NoDevice(format!("{} ({:?}): {e}", info.name, info.backend)))?;
        Ok(Gpu::from_device(device, queue, info, limits))
    }

    /// Wraps a device the caller opened (e.g. the app's), with the adapter's info and the limits
    /// the device was created with.
    pub fn from_device(
        device: wgpu::Device,
        queue: wgpu::Queue,
        info: wgpu::AdapterInfo,
        limits: wgpu::Limits,
    ) -> Gpu {
        let quantize_layout = bind_group_layout(
            &device,
            "bitbudget layout: quantize (params, x, table, blocks, codes)",
            &[true, true, false, false],
        );
        let dequantize_layout = bind_group_layout(
            &device,
            "bitbudget layout: dequantize (params, headers, codes, table, y)",
            &[true, true, true, false],
        );
        let measure_layout = bind_group_layout(
            &device,
            "bitbudget layout: measure (params, x, y, table, stats, tiles, partials)",
            &[true, true, true, false, false, false],
        );
        let pipeline_layout = |label, layout| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: &[Some(layout)],
                immediate_size: 0,
            })
        };
        let quantize_pipeline_layout =
            pipeline_layout("bitbudget pipeline layout: quantize", &quantize_layout);
        let dequantize_pipeline_layout =
            pipeline_layout("bitbudget pipeline layout: dequantize", &dequantize_layout);
        let measure_pipeline_layout =
            pipeline_layout("bitbudget pipeline layout: measure", &measure_layout);
        Gpu {
            device,
            queue,
            info,
            limits,
            chunk_limit: None,
            quantize_layout,
            dequantize_layout,
            measure_layout,
            quantize_pipeline_layout,
            dequantize_pipeline_layout,
            measure_pipeline_layout,
            cache: Arc::default(),
        }
    }

    /// Caps the weights streamed per chunk (at least 1; whole blocks are always kept together),
    /// e.g. to test chunking on small inputs. Without it, chunks are as large as the adapter's
    /// storage binding and workgroup limits allow.
    pub fn with_chunk_limit(mut self, weights: usize) -> Gpu {
        self.chunk_limit = Some(weights.max(1));
        self
    }

    /// The adapter's name (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub fn name(&self) -> &str {
        &self.info.name
    }

    /// The adapter's description: name, backend, device type and driver.
    pub fn info(&self) -> &wgpu::AdapterInfo {
        &self.info
    }

    /// The limits the device was opened with.
    pub fn limits(&self) -> &wgpu::Limits {
        &self.limits
    }

    /// Whether the device was opened with timestamp queries (`TIMESTAMP_QUERY`), which
    /// [`crate::quantize_timed`] then uses to time the kernels.
    pub fn has_timestamps(&self) -> bool {
        self.device
            .features()
            .contains(wgpu::Features::TIMESTAMP_QUERY)
    }

    /// The chunk cap set by [`Gpu::with_chunk_limit`], if any.
    pub(crate) fn chunk_limit(&self) -> Option<usize> {
        self.chunk_limit
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, Cache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The bind group layout and pipeline layout of `family`'s kernels.
    pub(crate) fn layouts(
        &self,
        family: Family,
    ) -> (&wgpu::BindGroupLayout, &wgpu::PipelineLayout) {
        if family == Family::MeasureLab {
            (&self.measure_layout, &self.measure_pipeline_layout)
        } else if family.is_dequantize() {
            (&self.dequantize_layout, &self.dequantize_pipeline_layout)
        } else {
            (&self.quantize_layout, &self.quantize_pipeline_layout)
        }
    }

    /// The pipeline of `entry` in `family`, compiled on first use.
    pub(crate) fn pipeline(
        &self,
        cache: &mut Cache,
        family: Family,
        entry: &'static str,
    ) -> wgpu::ComputePipeline {
        if let Some(p) = cache.pipelines.get(&(family, entry)) {
            return p.clone();
        }
        let module = cache
            .modules
            .entry(family)
            .or_insert_with(|| {
                self.device
                    .create_shader_module(wgpu::ShaderModuleDescriptor {
                        label: Some(family.name()),
                        source: wgpu::ShaderSource::Wgsl(family.source().into()),
                    })
            })
            .clone();
        let layout = self.layouts(family).1;
        let label = format!("bitbudget pipeline: {} {entry}", family.name());
        let pipeline = self
            .device
            .create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: Some(&label),
                layout: Some(layout),
                module: &module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                cache: None,
            });
        cache.pipelines.insert((family, entry), pipeline.clone());
        pipeline
    }

    /// The buffer holding `table`, uploaded on first use.
    pub(crate) fn table(&self, cache: &mut Cache, table: Table) -> wgpu::Buffer {
        cache
            .tables
            .entry(table)
            .or_insert_with(|| {
                let words = table.words();
                let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(table.label()),
                    size: (words.len() * 4) as u64,
                    usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
                self.queue.write_buffer(&buffer, 0, &words_to_bytes(&words));
                buffer
            })
            .clone()
    }

    /// Takes the cached buffers out for one call (so no lock is held across an `await`, and a
    /// concurrent call gets buffers of its own); [`Gpu::check_in`] returns them.
    pub(crate) fn check_out(&self) -> Buffers {
        Buffers(std::mem::take(&mut self.lock().buffers))
    }

    /// Returns a call's buffers to the cache, keeping the larger of two for the same role and
    /// slot.
    pub(crate) fn check_in(&self, buffers: Buffers) {
        let mut cache = self.lock();
        for (key, b) in buffers.0 {
            match cache.buffers.get(&key) {
                Some(kept) if kept.size() >= b.size() => {}
                _ => {
                    cache.buffers.insert(key, b);
                }
            }
        }
    }

    /// The buffer for `role` in `slot` from a call's set, at least `bytes` long (rounded up to
    /// 16 bytes): the one it holds when large enough, else a new one that replaces it.
    pub(crate) fn buffer(
        &self,
        set: &mut Buffers,
        (role, slot): (Role, usize),
        bytes: u64,
    ) -> wgpu::Buffer {
        let bytes = bytes.max(16).next_multiple_of(16);
        if let Some(b) = set.0.get(&(role, slot)) {
            if b.size() >= bytes {
                return b.clone();
            }
        }
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(role.label()),
            size: bytes,
            usage: role.usage(),
            mapped_at_creation: false,
        });
        set.0.insert((role, slot), buffer.clone());
        buffer
    }
}

impl fmt::Debug for Gpu {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Gpu")
            .field("adapter", &self.info.name)
            .field("backend", &self.info.backend)
            .finish_non_exhaustive()
    }
}

/// Little-endian bytes of u32 words.
pub(crate) fn words_to_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
