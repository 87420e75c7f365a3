// llama.cpp's reference quantizers and bitbudget's, both compiled to WebAssembly, on the same
// input in one Node.js process (V8, Chromium's engine), one core.
//
// Usage: node scripts/bench_ggml_wasm.mjs LLAMA.wasm[,…] BITBUDGET.wasm[,…] INPUT.f32 [SAMPLES [ONLY]]
//   LLAMA.wasm      ggml-quants.c built by `scripts/build_llama_reference.py --wasm-bench`, one
//                   module per set of compiler flags
//   BITBUDGET.wasm  crates/math/examples/wasm_quantizers.rs built for wasm32-unknown-unknown, one
//                   module per tree (an older tree's first: `--wasm-bench --before REF`)
//   INPUT.f32       little-endian f32 values (a multiple of 4096)
//   ONLY            schemes to run, comma-separated (all by default)
// Each module gets a column, named by its file. For each scheme: checks that every module writes
// the bytes of the last bitbudget module, then times each on the whole input, in turn, SAMPLES
// times (7 by default), each sample repeating the call until it has run 0.2 s of CPU time; prints
// the best GB/s (10^9 bytes of f32 input per CPU second) of each and the ratio of the last
// bitbudget module to the fastest llama.cpp build. Exits 1 if any bytes differ.
import fs from 'node:fs';

/// bitbudget's scheme name → how llama.cpp's wasm quantizes it (what llama-quantize calls
/// without an importance matrix: `quantize_row_*_ref`, and `quantize_iq4_nl` for IQ4_NL, whose
/// row reference differs).
const SCHEMES = [
  ['q8_0', 'row', 'quantize_row_q8_0_ref'],
  ['q4_0', 'row', 'quantize_row_q4_0_ref'],
  ['q4_1', 'row', 'quantize_row_q4_1_ref'],
  ['q5_0', 'row', 'quantize_row_q5_0_ref'],
  ['q5_1', 'row', 'quantize_row_q5_1_ref'],
  ['mxfp4', 'row', 'quantize_row_mxfp4_ref'],
  ['nvfp4', 'row', 'quantize_row_nvfp4_ref'],
  ['q2_k', 'row', 'quantize_row_q2_K_ref'],
  ['q3_k', 'row', 'quantize_row_q3_K_ref'],
  ['q4_k', 'row', 'quantize_row_q4_K_ref'],
  ['q5_k', 'row', 'quantize_row_q5_K_ref'],
  ['q6_k', 'row', 'quantize_row_q6_K_ref'],
  ['iq4_nl', 'chunk', 'quantize_iq4_nl'],
];
/// Values per row for `quantize_iq4_nl` (a typical weight row; every block size divides it).
const ROW = 4096;

const [llamaPaths, oursPaths, inputPath, samplesArg, only] = process.argv.slice(2);
if (!inputPath) {
  console.error('usage: node scripts/bench_ggml_wasm.mjs LLAMA.wasm[,…] BITBUDGET.wasm[,…] INPUT.f32 [SAMPLES [ONLY]]');
  process.exit(2);
}
const samples = Number(samplesArg ?? 7);
if (!(samples >= 1)) {
  console.error(`SAMPLES must be a positive number, not ${samplesArg}`);
  process.exit(2);
}
const input = new Float32Array(new Uint8Array(fs.readFileSync(inputPath)).buffer);
if (input.length === 0 || input.length % ROW !== 0) {
  console.error(`${inputPath}: ${input.length} values, not a positive multiple of ${ROW}`);
  process.exit(2);
}
const n = input.length;

/// Imports llama.cpp's module asks for and quantization never calls: each throws if reached.
function unreachableImports(module) {
  const imports = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    imports[from] ??= {};
    imports[from][name] = () => {
      throw new Error(`llama.cpp's wasm called ${from}.${name}`);
    };
  }
  return imports;
}

function instantiate(path) {
  const module = new WebAssembly.Module(fs.readFileSync(path));
  return new WebAssembly.Instance(module, unreachableImports(module)).exports;
}

/// The modules of a comma-separated list, each with its label (its file name) and the input
/// copied into its memory.
function load(paths, kind) {
  return paths.split(',').map((path) => {
    const exports = instantiate(path);
    const alloc = kind === 'llama' ? exports.malloc : exports.bb_alloc;
    const inputBytes = new Uint8Array(input.buffer);
    return { label: path.split('/').pop().replace(/\.wasm$/, ''), kind, exports, alloc,
      x: place(exports, alloc, inputBytes) };
  });
}

/// Copies `bytes` into `exports`' memory at a fresh allocation from `alloc`; returns its address.
function place(exports, alloc, bytes) {
  const at = alloc(bytes.length);
  new Uint8Array(exports.memory.buffer, at, bytes.length).set(bytes);
  return at;
}

const modules = [...load(llamaPaths, 'llama'), ...load(oursPaths, 'bitbudget')];
const ours = modules.at(-1);

/// CPU seconds of the process since `from` (a `process.cpuUsage()`).
const cpuSince = (from) => {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1e6;
};

/// The GB/s of `call` repeated until it has run at least 0.2 CPU seconds.
function rate(call) {
  let reps = 1;
  for (;;) {
    const start = process.cpuUsage();
    for (let i = 0; i < reps; i++) call();
    const t = cpuSince(start);
    if (t >= 0.2) return (4 * n * reps) / t / 1e9;
    reps *= t < 0.02 ? 10 : 2;
  }
}

/// A call of module `m`'s quantizer for `name` on the input, into a fresh output of `len` bytes;
/// with the output's address.
function quantizer(m, name, style, fn, len) {
  const out = m.alloc(len);
  if (m.kind === 'bitbudget') {
    const nameBytes = new TextEncoder().encode(name);
    const at = place(m.exports, m.alloc, nameBytes);
    return [() => {
      if (m.exports.bb_quantize(at, nameBytes.length, m.x, n, out, len) !== len) {
        throw new Error(`${m.label}: ${name} failed`);
      }
    }, out];
  }
  const f = m.exports[fn];
  return [style === 'row'
    ? () => f(m.x, out, BigInt(n))
    : () => f(m.x, out, BigInt(n / ROW), BigInt(ROW), 0), out];
}

/// Bytes of `n` values of `name` in bitbudget's layout (`usize::MAX` when it has no such scheme).
function quantizedLen(name) {
  const nameBytes = new TextEncoder().encode(name);
  return ours.exports.bb_quantized_len(place(ours.exports, ours.alloc, nameBytes), nameBytes.length, n);
}

const rows = [];
let failed = false;
const picked = only ? only.split(',') : SCHEMES.map(([name]) => name);
for (const [name, style, fn] of SCHEMES.filter(([name]) => picked.includes(name))) {
  const len = quantizedLen(name);
  if (len === 0xffffffff || modules.some((m) => m.kind === 'llama' && typeof m.exports[fn] !== 'function')) {
    console.error(`${name}: not in one of the modules`);
    failed = true;
    continue;
  }
  const calls = modules.map((m) => quantizer(m, name, style, fn, len));
  calls.forEach(([call]) => call());
  const bytes = (m, [, out]) => new Uint8Array(m.exports.memory.buffer, out, len);
  const expected = bytes(ours, calls.at(-1));
  const same = modules.every((m, i) => bytes(m, calls[i]).every((v, j) => v === expected[j]));
  failed ||= !same;
  const best = calls.map(() => 0);
  for (let s = 0; s < samples; s++) {
    calls.forEach(([call], i) => {
      best[i] = Math.max(best[i], rate(call));
    });
  }
  const fastestLlama = Math.max(...best.filter((_, i) => modules[i].kind === 'llama'));
  rows.push({ name, best, ratio: best.at(-1) / fastestLlama, same });
}

console.log(`${n} f32 values (${inputPath.split('/').pop()}), quantize GB/s in WebAssembly, Node ${process.version}, one core, best of ${samples}`);
const widths = modules.map(({ label }) => Math.max(10, label.length));
console.log(`${'scheme'.padEnd(8)} ${modules.map(({ label }, i) => label.padStart(widths[i])).join(' ')}  ${ours.label}/llama  bytes`);
for (const r of rows) {
  const cells = r.best.map((v, i) => v.toFixed(3).padStart(widths[i]));
  const ratio = r.ratio.toFixed(2).padStart(ours.label.length + 6);
  console.log(`${r.name.padEnd(8)} ${cells.join(' ')}  ${ratio}  ${r.same ? 'equal' : 'DIFFER'}`);
}
process.exit(failed ? 1 : 0);
