// Benchmarks of the release build (dist/) in headless Chromium. Not tests: the test command's
// tests/e2e/dist_check.mjs checks the same code paths for correctness.
//   node scripts/bench_release_wasm.mjs [--only memory|quantize|gpu] [--largest VALUES]
// memory: one control change on the Memory page → recompute every memo and redraw the charts,
//      measured until all reactive work has run (a macrotask after the input event); median and
//      p90 of 120 changes after 10 of warm-up, on the page, with all three charts in view, and in
//      the embed.
// quantize: every scheme's quantizer (GB/s of f32 input, the best of 10 runs of 2M values after a
//      warm-up) and the lab's whole pipeline (quantize, dequantize, measure; the best of 3 of 1M),
//      in the Quantize page's wasm (opt-level "z", as shipped).
// gpu: the Quantize page's own benchmark of q8_0, CPU against GPU, through Chromium's WebGPU, on
//      tensors up to --largest values (1M by default; the page offers 1M, 4M, 16M and 64M). Without
//      a GPU that is SwiftShader, a CPU emulation: its figure shows the path works, not GPU speed.
//      scripts/device_check.sh runs it on a GPU machine.
// DIST=DIR measures another build folder.
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { collectProblems, launchOptions, serveDist, webgpuLaunchOptions } from '../tests/e2e/serve.mjs';

const require = createRequire(new URL('../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
}
const parts = { memory, quantize, gpu };
const only = option('--only', null);
if (only !== null && !(only in parts)) {
  console.error(`--only takes ${Object.keys(parts).join(', ')}, not ${JSON.stringify(only)}`);
  process.exit(2);
}
const largest = Number(option('--largest', String(1 << 20)));
if (![1 << 20, 1 << 22, 1 << 24, 1 << 26].includes(largest)) {
  console.error(`--largest takes one of the page's sizes: 1048576, 4194304, 16777216 or 67108864 (got ${option('--largest')})`);
  process.exit(2);
}
// Every scheme, from Scheme::ALL (a native test keeps this file equal to the Rust).
const facts = JSON.parse(await readFile(new URL('../tests/e2e/facts.json', import.meta.url), 'utf8'));
const dist = process.env.DIST ?? new URL('../dist/', import.meta.url).pathname;
const { server, base } = await serveDist(dist);

/// Opens `url` in a fresh page of `browser`, runs `body`, and fails on any console error.
async function measure(browser, url, body, [width, height] = [1280, 900]) {
  const page = await browser.newPage({ viewport: { width, height } });
  const errors = collectProblems(page);
  try {
    await page.goto(base + url, { waitUntil: 'load' });
    await body(page);
    if (errors.length) throw new Error(`console: ${errors.join(' | ')}`);
  } finally {
    await page.close();
  }
}

const testid = (page, id) => page.locator(`[data-testid="${id}"]`).first();

async function memory() {
  const browser = await chromium.launch(launchOptions());
  const url = '?tab=memory&model=llama-3-8b&zero=3&dp=8&seq=4096&recompute=selective&gpu=h100-80gb';
  // Charts out of view wait until they scroll near it: the window 3200 px tall shows all three,
  // so every change redraws them all.
  const runs = [['page', '', [1280, 900]], ['page, all charts in view', '', [1280, 3200]], ['embed', '&embed=1', [1280, 900]]];
  try {
    for (const [name, extra, size] of runs) {
      await measure(browser, url + extra, async (page) => {
        await testid(page, 'bytes-total').waitFor({ timeout: 30000 });
        // An embed builds its controls when they are first opened.
        if (extra) await page.locator('[data-testid="embed-more-controls"] > summary').click();
        await testid(page, 'input-dp').waitFor();
        const times = await page.evaluate(async () => {
          const input = document.querySelector('[data-testid="input-dp"]');
          const total = () => document.querySelector('[data-testid="bytes-total"]').dataset.bytes;
          const nextTask = () => new Promise((r) => { const c = new MessageChannel(); c.port1.onmessage = () => r(); c.port2.postMessage(0); });
          const out = [];
          for (let i = 0; i < 130; i++) {
            const before = total();
            input.value = String(i % 2 ? 8 : 16);
            const t0 = performance.now();
            input.dispatchEvent(new Event('input', { bubbles: true }));
            await nextTask();
            if (i >= 10) out.push(performance.now() - t0); // the first 10 warm up
            if (total() === before) throw new Error('the total did not change');
          }
          return out.sort((a, b) => a - b);
        });
        const at = (q) => times[Math.floor(q * (times.length - 1))].toFixed(1);
        console.log(`Memory ${name}: one control change (recompute + redraw): median ${at(0.5)} ms, p90 ${at(0.9)} ms over ${times.length} changes`);
      }, size);
    }
  } finally {
    await browser.close();
  }
}

async function quantize() {
  const browser = await chromium.launch(launchOptions());
  try {
    // The benchmark's exports are the Quantize page's (src/bin/quant/bench.rs): open that page.
    await measure(browser, '?tab=quant&scheme=q8_0&schemes=q8_0', async (page) => {
      await testid(page, 'sqnr-q8_0').waitFor({ timeout: 30000 });
      const schemes = facts.schemes;
      // Warm up first so Chromium tiers the hot loops up from its baseline compiler (Liftoff) to
      // TurboFan, then measure.
      await page.evaluate((list) => list.forEach((s) => window.wasmBindings.bench_quantize(s, 1 << 21, 3)), schemes);
      await page.waitForTimeout(1500);
      const rates = await page.evaluate((list) => list.map((s) => [s, window.wasmBindings.bench_quantize(s, 1 << 21, 10)]), schemes);
      const lab = await page.evaluate((list) => list.map((s) => [s, window.wasmBindings.bench_lab(s, 1 << 20, 3)]), schemes);
      for (const [s, r] of [...rates, ...lab]) if (!(r > 0)) throw new Error(`${s}: the benchmark failed (${r})`);
      console.log('wasm quantize GB/s: ' + rates.map(([s, r]) => `${s} ${r.toFixed(2)}`).join(', '));
      console.log('wasm lab (quantize + dequantize + measure) GB/s: ' + lab.map(([s, r]) => `${s} ${r.toFixed(2)}`).join(', '));
    });
  } finally {
    await browser.close();
  }
}

async function gpu() {
  const browser = await chromium.launch(webgpuLaunchOptions());
  try {
    await measure(browser, '?tab=quant&scheme=q8_0&tensor=normal', async (page) => {
      const found = () => document.querySelector('[data-testid="gpu-status"]')?.textContent.startsWith('GPU: ');
      await page.waitForFunction(found, null, { timeout: 30000 })
        .catch(async () => { throw new Error(`no WebGPU adapter: ${await testid(page, 'gpu-status').textContent()}`); });
      await testid(page, 'device-bench').locator('summary').click();
      await page.selectOption('[data-testid="bench-largest"]', String(largest));
      await page.click('[data-testid="bench-run"]');
      const done = () => document.querySelector('[data-testid="bench-json"]') && !document.querySelector('[data-testid="bench-progress"]');
      await page.waitForFunction(done, null, { timeout: 600000 });
      const report = JSON.parse(await testid(page, 'bench-json').textContent());
      const sizes = [1 << 20, 1 << 22, 1 << 24, 1 << 26].filter((n) => n <= largest).length;
      if (report.measurements.length !== 4 * sizes) throw new Error(`expected ${4 * sizes} measurements, got ${report.measurements.length}`);
      const name = (await testid(page, 'gpu-status').textContent()).replace(/^GPU: /, '').replace(/ \(WebGPU\).*/, '');
      console.log(`q8_0 GB/s in the release build (CPU = wasm; GPU = ${name}): ` + report.measurements
        .map((m) => `${m.task} ${(m.values / (1 << 20)).toFixed(0)}M ${m.gb_per_s.toFixed(3)}`).join(', '));
    });
  } finally {
    await browser.close();
  }
}

let failed = false;
for (const [name, run] of Object.entries(parts)) {
  if (only && only !== name) continue;
  try {
    await run();
  } catch (e) {
    failed = true;
    console.log(`FAIL ${name}: ${e.message.split('\n')[0]}`);
  }
}
server.close();
process.exit(failed ? 1 : 0);
