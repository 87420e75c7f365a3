// The Quantize lab as users run it, before and after, in one run: two release builds
// (BEFORE and AFTER folders of `trunk build --release`, e.g. made by
// scripts/bench_lab_upload_before_after.sh) each get the same 42M-value .npy upload (168 MB,
// tests/e2e/lab_bench_input.mjs) in headless Chromium, alternately, ROUNDS times. Printed: the time from
// the file's change event until the results are in, the longest gap between animation frames,
// and each scheme's time and throughput (GB/s of f32 input, 10^9 bytes a second).
//
// Each scheme's time is read from outside the app, with no hook in it: where the lab computes in
// Web Workers, from a job's message to the worker until its answer (the scheme's name is read from
// the job's postcard header); where it computes on the page's thread (builds before the workers), from
// the progress bar's value, sampled every animation frame, crossing k/n and then (k+1)/n, which
// is within a frame or two of the truth.
//
// Usage: node tests/e2e/lab_upload_ab.mjs BEFORE_DIST AFTER_DIST [ROUNDS] [AFTER_QUERY]
// AFTER_QUERY is appended to the after build's URL (default: the 14 schemes the before build had,
// FOURTEEN_SCHEMES; pass '' for every scheme).
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { launchOptions, serveDist } from './serve.mjs';
import { writeBigNpy, FOURTEEN_SCHEMES } from './lab_bench_input.mjs';

const require = createRequire(new URL('../../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const [before, after] = process.argv.slice(2, 4);
const rounds = Number(process.argv[4] ?? 1);
const afterQuery = process.argv[5] ?? FOURTEEN_SCHEMES;
if (!before || !after) {
  console.error('usage: node tests/e2e/lab_upload_ab.mjs BEFORE_DIST AFTER_DIST [ROUNDS] [AFTER_QUERY]');
  process.exit(2);
}
const n = 42_000_000;
const dir = mkdtempSync(join(tmpdir(), 'bitbudget-ab-'));
const file = join(dir, 'big.npy');
writeBigNpy(file, n);
const browser = await chromium.launch(launchOptions());

// Installed before the app loads: logs every message to and from a Web Worker with its time,
// and the progress bar's value at every animation frame once armed.
function instrument() {
  window.__ev = [];
  const Native = window.Worker;
  let count = 0;
  // A job's header is postcard (Request::Analyse is variant 2: generation, tensor and index as
  // varints, then the scheme's name, length first); builds before it wrote CBOR, a map whose
  // `scheme` key is followed by a short text string.
  const schemeOf = (m) => {
    const header = Array.isArray(m) ? m[0] : null;
    if (!(header instanceof Uint8Array)) return null;
    const text = String.fromCharCode(...header);
    const at = text.indexOf('scheme');
    if (at >= 0) {
      const len = header[at + 6] - 0x60;
      return len > 0 && len < 24 ? text.slice(at + 7, at + 7 + len) : null;
    }
    if (header[0] !== 2) return null;
    let i = 1;
    const varint = () => {
      let v = 0;
      for (let shift = 0; i < header.length; shift += 7) {
        const b = header[i++];
        v += (b & 0x7f) * 2 ** shift;
        if (!(b & 0x80)) break;
      }
      return v;
    };
    varint(), varint(), varint();
    const len = varint();
    return len > 0 && len < 24 ? text.slice(i, i + len) : null;
  };
  window.Worker = function (url, options) {
    const w = new Native(url, options);
    const id = count++;
    const post = w.postMessage.bind(w);
    w.postMessage = (m, transfer) => {
      window.__ev.push({ t: performance.now(), id, dir: 'to', scheme: schemeOf(m) });
      return post(m, transfer);
    };
    w.addEventListener('message', () => window.__ev.push({ t: performance.now(), id, dir: 'from' }));
    return w;
  };
  window.Worker.prototype = Native.prototype;
}

async function run(dist, query) {
  const { server, base } = await serveDist(dist);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.addInitScript(instrument);
  await page.goto(`${base}?tab=quant&scheme=q8_0&tensor=normal${query}`);
  await page.locator('[data-testid="sqnr-q8_0"]').waitFor({ timeout: 60000 });
  const schemes = await page.locator('[data-testid="quant-table"] tbody tr th').allInnerTexts();
  await page.evaluate(() => {
    const run = { gap: 0, seen: false, progress: [] };
    window.__lab = run;
    document.querySelector('[data-testid="quant-file"]').addEventListener('change', () => {
      run.start = performance.now();
      let last = run.start;
      const frame = () => {
        const now = performance.now();
        run.gap = Math.max(run.gap, now - last);
        last = now;
        const bar = document.querySelector('[data-testid="quant-progress"]');
        if (bar) run.progress.push([now, bar.value]);
        run.seen ||= bar !== null;
        if (run.seen && !bar) run.ms = now - run.start;
        else requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
    }, { once: true, capture: true });
  });
  await page.setInputFiles('[data-testid="quant-file"]', file);
  await page.waitForFunction(() => window.__lab.ms !== undefined, null, { timeout: 280000, polling: 250 });
  const { lab, ev } = await page.evaluate(() => ({ lab: window.__lab, ev: window.__ev }));
  const status = await page.locator('[data-testid="tensor-status"]').innerText();
  if (!status.includes('42,000,000 values')) throw new Error(`upload not in use: ${status}`);
  await page.close();
  server.close();
  const times = {};
  const jobs = ev.filter((e) => e.t >= lab.start);
  const open = {};
  for (const e of jobs) {
    if (e.dir === 'to' && e.scheme) open[e.id] = e;
    else if (e.dir === 'from' && open[e.id]) {
      times[open[e.id].scheme] = (e.t - open[e.id].t) / 1000;
      delete open[e.id];
    }
  }
  if (Object.keys(times).length === 0) {
    // The page's own thread: scheme k runs while the progress bar is in [k/n, (k+1)/n).
    const crossing = (k) => (lab.progress.find(([, v]) => v * schemes.length >= k) ?? [lab.start + lab.ms])[0];
    schemes.forEach((s, k) => {
      const end = k + 1 === schemes.length ? lab.start + lab.ms : crossing(k + 1);
      times[s] = (end - crossing(k)) / 1000;
    });
  }
  return { total: lab.ms / 1000, gap: lab.gap, times, schemes };
}

const results = { before: [], after: [] };
for (let r = 0; r < rounds; r++) {
  results.before.push(await run(before, ''));
  results.after.push(await run(after, afterQuery));
}
await browser.close();
rmSync(dir, { recursive: true, force: true });

const best = (list, f) => Math.min(...list.map(f));
const gb = (s) => (n * 4 / 1e9 / s).toFixed(3);
console.log(`42M-value upload (${(n * 4 / 1e6).toFixed(0)} MB), best of ${rounds} round(s), before: ${before}, after: ${after}${afterQuery}`);
for (const side of ['before', 'after']) {
  const list = results[side];
  console.log(`${side.padEnd(6)}: upload to results ${best(list, (x) => x.total).toFixed(2)} s (${list.map((x) => x.total.toFixed(2)).join(', ')}), ` +
    `longest gap between frames ${best(list, (x) => x.gap).toFixed(0)} ms, ${list[0].schemes.length} schemes`);
}
console.log('scheme           before s  after s   before GB/s  after GB/s  after/before');
for (const s of results.before[0].schemes) {
  const b = best(results.before, (x) => x.times[s] ?? Infinity);
  const a = best(results.after, (x) => x.times[s] ?? Infinity);
  console.log(`${s.padEnd(16)} ${b.toFixed(2).padStart(8)} ${a.toFixed(2).padStart(8)} ${gb(b).padStart(12)} ${gb(a).padStart(11)} ${(b / a).toFixed(2).padStart(13)}`);
}
