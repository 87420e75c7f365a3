//! One module per subcommand; each exposes `run(args) -> Result<(), String>`.

pub mod bits;
pub mod cast;
pub mod chart_out;
pub mod gguf;
pub mod gpu_device;
pub mod memory;
pub mod presets;
pub mod quantize;
pub mod quantize_stream;
pub mod scaling;
pub mod serve;
