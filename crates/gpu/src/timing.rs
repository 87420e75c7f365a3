//! Upload, compute and readback timed apart ([`crate::quantize_timed`]): each chunk's upload, kernels
//! and readback go in submissions of their own, and the host waits for the queue after each
//! (which adds a round trip per phase, so the phases add up to more than an untimed call takes;
//! the untimed call also overlaps one chunk's readback with the next chunk's upload and compute,
//! which a timed call cannot do without mixing the phases).
//! Compute is read from timestamp queries when the adapter offers `TIMESTAMP_QUERY` (Mesa
//! lavapipe does), else timed on the host around its submission; [`Timings::clock`] says which.

use crate::context::{Gpu, GpuError};
use crate::dispatch::{read, submit_stamped, words, Pass};
use crate::stamps::Stamps;

/// How [`Timings::compute_ms`] was taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComputeClock {
    /// GPU timestamps written at the start of the first pass and the end of the last.
    Timestamps,
    /// The host's clock around the submission of the passes, waiting for the queue.
    HostAroundSubmission,
}

impl ComputeClock {
    /// Words for a label ("timestamp queries", "host timing around separate submissions").
    pub const fn label(self) -> &'static str {
        match self {
            ComputeClock::Timestamps => "timestamp queries",
            ComputeClock::HostAroundSubmission => "host timing around separate submissions",
        }
    }
}

/// Milliseconds spent in each phase of one timed call, summed over its chunks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timings {
    /// Writing the input to the device, until the queue is idle (host clock).
    pub upload_ms: f64,
    /// The kernels (see `clock`); FP8's first pass over the tensor (its absmax) is counted here,
    /// on the host clock.
    pub compute_ms: f64,
    /// Copying the results to mappable buffers, mapping and reading them (host clock).
    pub readback_ms: f64,
    /// How `compute_ms` was taken.
    pub clock: ComputeClock,
}

/// A call's clock and running [`Timings`].
pub(crate) struct Stopwatch<'a> {
    now: &'a dyn Fn() -> f64,
    stamps: Option<Stamps>,
    /// The phases so far.
    pub timings: Timings,
}

impl<'a> Stopwatch<'a> {
    /// Timings read from `now` (milliseconds), with timestamp queries when `gpu` has them.
    pub fn new(gpu: &Gpu, now: &'a dyn Fn() -> f64) -> Self {
        let stamps = gpu.has_timestamps().then(|| {
            let buffer = |label, usage| {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some(label),
                    size: 16,
                    usage,
                    mapped_at_creation: false,
                })
            };
            use wgpu::BufferUsages as U;
            Stamps {
                queries: gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("bitbudget queries: compute timestamps"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2,
                }),
                resolve: buffer(
                    "bitbudget buffer: timestamps",
                    U::QUERY_RESOLVE | U::COPY_SRC,
                ),
                read: buffer(
                    "bitbudget buffer: timestamps readback",
                    U::MAP_READ | U::COPY_DST,
                ),
            }
        });
        let clock = match stamps {
            Some(_) => ComputeClock::Timestamps,
            None => ComputeClock::HostAroundSubmission,
        };
        Stopwatch {
            now,
            stamps,
            timings: Timings {
                upload_ms: 0.0,
                compute_ms: 0.0,
                readback_ms: 0.0,
                clock,
            },
        }
    }

    /// The clock now, in milliseconds.
    pub fn now(&self) -> f64 {
        (self.now)()
    }

    /// Submits what the queue holds (e.g. written buffers) and waits until the device is done,
    /// then adds the time since `since` to the upload.
    pub async fn uploaded(&mut self, gpu: &Gpu, since: f64) -> Result<(), GpuError> {
        idle(gpu).await?;
        self.timings.upload_ms += self.now() - since;
        Ok(())
    }

    /// Runs `passes` in a submission of their own and adds their time to compute.
    pub async fn compute(&mut self, gpu: &Gpu, passes: &[Pass<'_>]) -> Result<(), GpuError> {
        let t0 = self.now();
        let index = submit_stamped(gpu, passes, &[], self.stamps.as_ref());
        idle(gpu).await?;
        match &self.stamps {
            Some(st) if !passes.is_empty() => {
                let ticks = words(&read(gpu, &[(&st.read, 16)], index).await?[0]);
                let start = ticks[0] as u64 | (ticks[1] as u64) << 32;
                let end = ticks[2] as u64 | (ticks[3] as u64) << 32;
                let ns = end.saturating_sub(start) as f64 * gpu.queue.get_timestamp_period() as f64;
                self.timings.compute_ms += ns / 1e6;
            }
            _ => self.timings.compute_ms += self.now() - t0,
        }
        Ok(())
    }
}

/// Waits until the device has done everything submitted so far (an empty submission first, so
/// that written buffers are included).
async fn idle(gpu: &Gpu) -> Result<(), GpuError> {
    let (tx, rx) = futures_channel::oneshot::channel();
    gpu.queue.submit([]);
    gpu.queue.on_submitted_work_done(move || {
        // The receiver only goes away when this call has already failed.
        let _ = tx.send(());
    });
    gpu.device
        .poll(wgpu::PollType::wait_indefinitely())
        .map_err(|e| GpuError::Readback(e.to_string()))?;
    rx.await
        .map_err(|_| GpuError::Readback("the device never finished its work".into()))
}
