// The Quantize lab's Web Worker (crates/worker): loads wasm-bindgen's no-modules glue, which Trunk
// writes beside this file, then the worker's wasm, whose main() answers the page's messages.
// The page names the worker after this file's address: a harness that wraps workers in a blob:
// URL (wasm-bindgen-test-runner does) leaves no address to resolve the others against.
const base = self.name || self.location.href;
importScripts(new URL('./bitbudget-worker.js', base).href);
wasm_bindgen({ module_or_path: new URL('./bitbudget-worker_bg.wasm', base).href });
