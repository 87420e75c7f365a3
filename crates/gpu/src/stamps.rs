//! The timestamp queries of one timed call: written by the dispatcher, read by the stopwatch.

/// The query set and buffers of one call's compute timestamps.
pub(crate) struct Stamps {
    /// Two timestamp queries: the first pass's start, the last pass's end.
    pub queries: wgpu::QuerySet,
    /// Where the queries resolve (16 bytes).
    pub resolve: wgpu::Buffer,
    /// Its mappable copy.
    pub read: wgpu::Buffer,
}
