//! The parts of a Quantize lab run, produced on the CPU once, so that a benchmark can time the
//! measuring pass alone (`benches/lab_measure.rs`, `tests/lab_wasm_bench.rs`).

use bitbudget_math::quant::lab::{CpuBackend, PartBackend, ProducedPart, SchemeRun};

/// Every part of `run`, produced on the CPU and measured (so that the run moves on), in order.
/// Panics if a part cannot be produced (the benchmarks' inputs are whole blocks).
pub fn produced_parts(mut run: SchemeRun<'_>) -> Vec<ProducedPart> {
    let mut parts = Vec::new();
    while !run.done() {
        let part = CpuBackend
            .produce(run.quantizer(), &run.padded_part())
            .expect("whole blocks");
        run.measure(&part).expect("part lengths");
        parts.push(part);
    }
    parts
}
