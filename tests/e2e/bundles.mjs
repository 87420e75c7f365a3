// What each page transfers before it is usable, from a release build: index.html, the style sheets,
// and that page's JS glue and wasm (the names scripts/page_bundles.mjs wrote into the boot script),
// each gzip -9 as a host would serve it. The lab's worker and sample tensors load on demand and
// the other pages only when the browser is idle: neither counts. An on-demand module (the boot
// script's MODULES) is weighed alone, its JS and wasm: it loads into a page already there.
import { readdir, readFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { bootList } from '../../scripts/boot_lists.mjs';

/// Byte budgets (gzip, 1 KB = 1000 B) of what each page and each embed transfers before it is
/// usable. A page's embed loads the page's own files, except Memory's and Serve's, which start with
/// their light binary (`<page>-embed`) and load the rest when a reader opens it. Memory is the
/// site's first page (400 KB); Serve, Quantize and Learn load when opened (450 KB); an embed of
/// Memory, Serve or Bits 300 KB, of Quantize or Learn 450 KB. The Memory page's files module
/// (downloads and config reader, loaded on first use) 250 KB. `ceiling`, where set, is what the page weighs today while it is over
/// its target (a fresh clone's build measures up to 2 KB heavier than a working tree's: the
/// ceiling is the fresh clone's weight): the test fails above it, and fails once the page is under its target so
/// that the ceiling is removed.
export const BUDGETS = {
  memory: { target: 400_000 },
  'memory-embed': { target: 300_000 },
  bits: { target: 300_000 },
  quant: { target: 450_000 },
  serve: { target: 450_000 },
  'serve-embed': { target: 300_000 },
  learn: { target: 450_000 },
  'memory-files': { target: 250_000 },
};

/// The boot script's page → [JS, wasm] map in `dist/index.html`.
export async function bundles(dist) {
  const html = await readFile(join(dist, 'index.html'), 'utf8');
  const m = html.match(/const BUNDLES = (\{.*?\});/);
  if (!m) throw new Error(`no BUNDLES map in ${join(dist, 'index.html')}`);
  return JSON.parse(m[1]);
}

const gz = async (dist, file) => gzipSync(await readFile(join(dist, file)), { level: 9 }).length;

/// Per page: { html, css, js, wasm, total } in gzip'd bytes (html and css 0 for a module).
export async function pageWeights(dist) {
  const css = (await readdir(dist)).filter((f) => f.endsWith('.css'));
  const html = await gz(dist, 'index.html');
  let cssBytes = 0;
  for (const f of css) cssBytes += await gz(dist, f);
  const onDemand = bootList(await readFile(join(dist, 'index.html'), 'utf8'), 'MODULES', dist);
  const out = {};
  for (const [page, [js, wasm]] of Object.entries(await bundles(dist))) {
    const shell = onDemand.includes(page) ? { html: 0, css: 0 } : { html, css: cssBytes };
    const w = { ...shell, js: await gz(dist, js), wasm: await gz(dist, wasm) };
    out[page] = { ...w, total: w.html + w.css + w.js + w.wasm };
  }
  return out;
}

/// One line per page, and the budgets each breaks (empty when all hold).
export function checkBudgets(weights) {
  const lines = [];
  const broken = [];
  const kb = (n) => `${(n / 1000).toFixed(1)} KB`;
  for (const [page, { target, ceiling }] of Object.entries(BUDGETS)) {
    const w = weights[page];
    if (!w) { broken.push(`${page}: no bundle in the build`); continue; }
    lines.push(`budget: ${page} ${kb(w.total)} gzip (wasm ${kb(w.wasm)}, JS ${kb(w.js)}, CSS ${kb(w.css)}, HTML ${kb(w.html)}); target ${kb(target)}${ceiling ? `, over it: ceiling ${kb(ceiling)}` : ''}`);
    if (w.total > (ceiling ?? target)) broken.push(`${page} weighs ${kb(w.total)}, over its ${ceiling ? 'ceiling' : 'budget'} of ${kb(ceiling ?? target)}`);
    if (ceiling && w.total <= target) broken.push(`${page} is under its ${kb(target)} target: remove its ceiling`);
  }
  for (const page of Object.keys(weights)) if (!BUDGETS[page]) broken.push(`${page} has no budget`);
  return { lines, broken };
}
