// Loads the release build (dist/) in headless Chromium and checks that it renders real numbers
// without console errors: `cargo test --target wasm32` never runs wasm-opt, this does.
// Usage: node tests/e2e/dist_check.mjs [--screenshots DIR]
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';
import { collectProblems, launchOptions, serveDist, webgpuLaunchOptions } from './serve.mjs';

// The lists this script needs, written from the Rust that defines them (a native test keeps it equal).
const facts = JSON.parse(await readFile(new URL('./facts.json', import.meta.url), 'utf8'));

const require = createRequire(new URL('../../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const dist = process.env.DIST ?? new URL('../../dist/', import.meta.url).pathname; // DIST: another build folder
const shotsAt = process.argv.indexOf('--screenshots');
const shotsDir = shotsAt > 0 ? process.argv[shotsAt + 1] : null;

const { server, base } = await serveDist(dist);
const browser = await chromium.launch(launchOptions());

const failures = [];
let passed = 0;
async function check(name, width, url, assertions, colorScheme = 'light', on = browser) {
  await checkSteps([[name, assertions]], width, url, colorScheme, on);
}

// Opens `url` once, then runs each step on that page in turn: its assertions, then what every
// page must pass (no horizontal scrolling, no console problem); each step passes or fails alone.
async function checkSteps(steps, width, url, colorScheme = 'light', on = browser) {
  steps = steps.filter(([name]) => !process.env.ONLY || name.startsWith(process.env.ONLY)); // ONLY=learn: one group
  if (!steps.length) return;
  let started = performance.now();
  const [w, h] = Array.isArray(width) ? width : [width, 900]; // [width, height] for a taller window
  const page = await on.newPage({ viewport: { width: w, height: h }, deviceScaleFactor: 1, colorScheme });
  const errors = collectProblems(page);
  try {
    await page.goto(base + url, { waitUntil: 'load' });
    for (const [name, assertions] of steps) {
      try {
        await assertions(page);
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        if (overflow > 0) throw new Error(`the page is ${overflow}px wider than the ${w}px window (horizontal scrolling)`);
        if (errors.length) throw new Error(`console: ${errors.splice(0).join(' | ')}`);
        if (shotsDir) {
          // Back to the top, as a reader arrives (the controls are sticky: they follow the scroll).
          await page.evaluate(() => new Promise((r) => { window.scrollTo(0, 0); requestAnimationFrame(() => requestAnimationFrame(r)); }));
          await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
        }
        passed += 1;
        console.log(`ok   ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
      } catch (e) {
        failures.push(`${name}: ${e.message}`);
        console.log(`FAIL ${name}: ${e.message}`);
      }
      started = performance.now();
    }
  } catch (e) {
    failures.push(`${url}: ${e.message}`);
    console.log(`FAIL ${url}: ${e.message}`);
  } finally {
    await page.close();
  }
}

async function text(page, testid) {
  const el = page.locator(`[data-testid="${testid}"]`).first();
  await el.waitFor({ timeout: 20000 });
  return (await el.textContent()).trim();
}

function expectEq(actual, expected, what) {
  if (actual !== expected) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

// Charts out of view wait to be drawn until they come near it, so look at each as a reader would:
// scrolled to, then a few frames later.
async function canvasInk(page, testid) {
  const canvas = page.locator(`[data-testid="${testid}"]`);
  await canvas.scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(r, 30)))));
  return canvas.evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Set();
    for (let i = 0; i < d.length; i += 64) seen.add(`${d[i]},${d[i + 1]},${d[i + 2]}`);
    return seen.size;
  });
}

for (const [name, width] of [['memory-1280', 1280], ['memory-390', 390]]) {
  await check(name, width, '?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb', async (page) => {
    const bytes = await page.locator('[data-testid="bytes-weights"]').getAttribute('data-bytes');
    expectEq(bytes, '2007565312', 'Llama 3 8B weights per GPU under ZeRO-3 over 8 GPUs');
    const verdict = await text(page, 'verdict');
    if (!verdict.startsWith('Fits')) throw new Error(`verdict: ${verdict}`);
    for (const id of ['memory-bar', 'strategies-chart', 'scaling-chart']) {
      const colours = await canvasInk(page, id);
      if (colours < 4) throw new Error(`${id} looks blank (${colours} colours)`);
    }
  });
}
// The Memory page's downloads and config reader live in an on-demand module (memory-files): none
// of it loads with the page; the first use loads it once, and it makes the same files as the CLI.
await check('memory-files-module', 1280, '?tab=memory&model=llama-3-8b&mode=train&dtype=bf16&optimizer=adamw&zero=3&dp=8&tp=1&pp=1&batch=1&seq=4096&recompute=selective&gpu=h100-80gb', async (page) => {
  const module = /^bitbudget-memory-files-[0-9a-f]+_bg\.wasm$/;
  const loads = () => page.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()));
  await text(page, 'verdict');
  if ((await loads()).some((n) => module.test(n))) throw new Error('the page loaded its files module before any use');
  const saved = async (id) => {
    const [download] = await Promise.all([page.waitForEvent('download', { timeout: 30000 }), page.locator(`[data-testid="${id}"]`).click()]);
    return [download.suggestedFilename(), await readFile(await download.path(), 'utf8')];
  };
  const [svgName, svg] = await saved('download-svg');
  expectEq(svgName, 'bitbudget-llama-3-8b-train-zero3-dp8.svg', "the SVG's name");
  expectEq(svg, await readFile(new URL('../fixtures/memory_llama3_8b_zero3_bar.svg', import.meta.url), 'utf8'), "the SVG download (the CLI's --svg --chart bar)");
  const [, csv] = await saved('download-csv');
  const total = await page.locator('[data-testid="bytes-total"]').getAttribute('data-bytes');
  if (!csv.includes(`\ntotal,${total},,\n`)) throw new Error(`the CSV lacks the total ${total}: ${csv.slice(0, 200)}`);
  const [pngName] = await saved('download-png');
  expectEq(pngName, 'bitbudget-llama-3-8b-train-zero3-dp8.png', "the PNG's name");
  await page.locator('[data-testid="config-drop"] > summary').click();
  await page.locator('[data-testid="config-text"]').fill(await readFile(new URL('../../validation/configs/llama-3.2-1b.json', import.meta.url), 'utf8'));
  await page.locator('[data-testid="config-load"]').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="config-message"]')?.textContent.includes('1.24B parameters'), null, { timeout: 10000 });
  await page.waitForURL(/[?&]arch=/, { timeout: 5000 });
  expectEq((await loads()).filter((n) => module.test(n)).length, 1, 'loads of the files module');
});
for (const [name, width] of [['bits-1280', 1280], ['bits-390', 390]]) {
  await check(name, width, '?tab=bits&x=0.1&fmt=bf16', async (page) => {
    expectEq(await text(page, 'stored-bf16'), '0.10009765625', 'BF16 of 0.1');
    expectEq(await text(page, 'stored-f32'), '0.100000001490116119384765625', 'FP32 of 0.1');
    expectEq(await text(page, 'formula-bf16'), '(-1)^0 × 2^(123-127) × 1.6015625', 'BF16 decoding');
    const colours = await canvasInk(page, 'number-line');
    if (colours < 4) throw new Error(`number line looks blank (${colours} colours)`);
  });
}
await check('memory-embed', 900, '?tab=memory&model=mixtral-8x7b&mode=lora&seq=32768&batch=4&gpu=a100-80gb&embed=1', async (page) => {
  if (await page.locator('header.top').count()) throw new Error('embed mode shows the site header');
  if (await page.locator('[data-testid="strategies-chart"]').count()) throw new Error('embed mode shows the comparisons');
  await page.locator('[data-testid="verdict"]').waitFor({ timeout: 20000 });
});
// Memory's and Serve's embeds start with their light binary; opening a disclosure loads the
// page's whole binary once, which takes the light one's place with the same state, reopens what
// was opened and keeps the focus there; then the controls work (each change applied once).
for (const [page, url, disclosure, inside, input] of [
  ['memory', '?tab=memory&model=llama-3-8b&gpu=h100-80gb&zero=3&dp=2&embed=1', 'embed-more-controls', 'input-dp', 'input-dp'],
  ['serve', '?tab=serve&model=llama-3-8b&gpu=rtx-4090&embed=1', 'embed-more-results', 'serve-figures', null],
]) await check(`${page}-embed-loads-rest`, 900, url, async (tab) => {
  const wasm = [];
  tab.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(new URL(r.url()).pathname.split('/').pop()); });
  const verdictId = page === 'memory' ? 'verdict' : 'serve-verdict';
  const verdict = await text(tab, verdictId);
  const light = new RegExp(`^bitbudget-${page}-embed-[0-9a-f]+_bg\\.wasm$`);
  const whole = new RegExp(`^bitbudget-${page}-[0-9a-f]+_bg\\.wasm$`);
  const loaded = await tab.evaluate(() => performance.getEntriesByType('resource').map((e) => e.name.split('/').pop()).filter((n) => n.endsWith('.wasm')));
  if (!loaded.some((n) => light.test(n)) || loaded.some((n) => whole.test(n))) throw new Error(`before a click the embed loaded ${loaded.join(', ')}`);
  await tab.locator(`[data-testid="${disclosure}"] > summary`).click();
  await tab.locator(`[data-testid="${inside}"]`).waitFor({ timeout: 30000 });
  if (wasm.filter((n) => whole.test(n)).length !== 1) throw new Error(`opening loaded ${wasm.join(', ')}`);
  expectEq(await tab.locator('body > .app').count(), 1, 'apps on the page after the swap');
  expectEq(await tab.locator(`[data-testid="${disclosure}"]`).evaluate((d) => d.open), true, 'the opened disclosure is open again');
  expectEq(await tab.evaluate((id) => document.activeElement?.closest('[data-testid]')?.dataset.testid, disclosure), disclosure, 'focus after the swap');
  expectEq(await text(tab, verdictId), verdict, 'the verdict after the swap');
  if (input) {
    const before = await tab.locator('[data-testid="bytes-total"]').getAttribute('data-bytes');
    await tab.locator(`[data-testid="${input}"]`).fill('4');
    await tab.waitForFunction((b) => document.querySelector('[data-testid="bytes-total"]').dataset.bytes !== b, before);
    await tab.waitForURL(/[?&]dp=4(&|$)/, { timeout: 5000 });
  }
});
// A change made in the light widget while the rest loads (here an "Apply" of the advice, the
// whole binary held back 2 s) is the state the whole page starts from.
await check('memory-embed-change-while-loading', 900, '?tab=memory&model=llama-3-8b&mode=train&gpu=rtx-4090&embed=1', async (tab) => {
  await tab.route(/bitbudget-memory-[0-9a-f]+_bg\.wasm$/, async (r) => { await new Promise((w) => setTimeout(w, 2000)); await r.continue(); });
  const verdict = await text(tab, 'verdict');
  await tab.locator('[data-testid="embed-more-controls"] > summary').click();
  await tab.locator('[data-testid^="apply-"]').first().click();
  await tab.waitForFunction((v) => document.querySelector('[data-testid="verdict"]').textContent.trim() !== v, verdict);
  const applied = await text(tab, 'verdict');
  if (await tab.locator('[data-testid="input-dp"]').count()) throw new Error('the whole page came before the change: the check proves nothing');
  await tab.locator('[data-testid="input-dp"]').waitFor({ timeout: 30000 });
  expectEq(await text(tab, 'verdict'), applied, 'the verdict after the swap');
});
// A serving link made for the Memory page opens the Serve page in its place, with what it carries.
await check('memory-serving-link', 900, '?tab=memory&model=mixtral-8x7b&mode=inference&seq=32768&batch=4&gpu=a100-80gb&embed=1&theme=dark', async (page) => {
  await page.waitForURL(/tab=serve/, { timeout: 20000 });
  await page.locator('[data-testid="serve-verdict"]').waitFor({ timeout: 20000 });
  if (await page.locator('header.top').count()) throw new Error('the Serve widget shows the site header');
  const at = new URL(page.url()).searchParams;
  for (const [key, value] of [['model', 'mixtral-8x7b'], ['gpu', 'a100-80gb'], ['len', '32768'], ['conc', '4'], ['embed', '1'], ['theme', 'dark']]) {
    expectEq(at.get(key), value, `${key} carried to the Serve page`);
  }
});
// A serving link with a value that cannot be read keeps its note on screen, with a link onwards.
await check('memory-serving-link-bad-value', 900, '?tab=memory&model=llama-3-8b&mode=inference&batch=banana&gpu=a100-80gb', async (page) => {
  const notes = await text(page, 'url-notes');
  if (!notes.includes('banana')) throw new Error(`the note does not name the bad value: ${notes}`);
  if (/tab=serve/.test(page.url())) throw new Error('the page moved on and lost the note');
  await page.click('[data-testid="moved-link"]');
  await page.waitForURL(/tab=serve/, { timeout: 20000 });
  await page.locator('[data-testid="serve-verdict"]').waitFor({ timeout: 20000 });
  expectEq(new URL(page.url()).searchParams.get('model'), 'llama-3-8b', 'model carried to the Serve page');
});
await check('memory-dark', 1280, '?tab=memory&model=llama-2-70b&mode=qlora&flash-attention=1&gpu=a100-80gb', async (page) => {
  // The palette's colours are set by the app once its wasm runs, which can be after 'load'.
  await page.locator('[data-testid="memory-bar"]').waitFor({ timeout: 20000 });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  expectEq(bg, 'rgb(21, 22, 24)', 'dark background from the palette');
  const colours = await canvasInk(page, 'memory-bar');
  if (colours < 4) throw new Error('the bar chart is blank in dark mode');
}, 'dark');
for (const [name, width] of [['quant-1280', 1280], ['quant-390', 390]]) {
  await check(name, width, '?tab=quant&scheme=q4_0&tensor=sample:layer0.attention.query.weight', async (page) => {
    await page.locator('[data-testid="sqnr-q8_0"]').waitFor({ timeout: 30000 });
    const status = await text(page, 'tensor-status');
    if (!status.includes('384 × 384')) throw new Error(`sample tensor not loaded: ${status}`);
    const rows = await page.locator('[data-testid="quant-table"] tbody tr').count();
    // One row per scheme the picker offers (both come from Scheme::ALL).
    const schemes = await page.locator('[data-testid="quant-scheme"] option').count();
    if (schemes < facts.schemes.length) throw new Error(`the picker offers ${schemes} schemes`);
    expectEq(rows, schemes, 'one row per scheme');
    // This browser has no WebGPU adapter: the page says so in one short sentence and runs on the CPU.
    await page.waitForFunction(() => !document.querySelector('[data-testid="gpu-status"]').textContent.startsWith('Looking'), null, { timeout: 20000 });
    const gpu = await text(page, 'gpu-status');
    if (!gpu.startsWith('No GPU here') || gpu.length > 200) throw new Error(`GPU status: ${gpu}`);
    // The lab computes in Web Workers (one per reported core), loaded from this origin under the CSP.
    const ranOn = await text(page, 'ran-on');
    if (!/^Computed on the CPU \(WebAssembly\), in \d+ Web Workers?\.$/.test(ranOn)) throw new Error(`where the lab ran: ${ranOn}`);
    const q8 = Number(await text(page, 'sqnr-q8_0'));
    const q4 = Number(await text(page, 'sqnr-q4_0'));
    if (!(q8 > q4 && q4 > 10)) throw new Error(`SQNR q8_0 ${q8}, q4_0 ${q4}`);
    for (const id of ['quant-histogram', 'quant-errors', 'quant-heatmap', 'quant-tradeoff']) {
      const colours = await canvasInk(page, id);
      if (colours < 3) throw new Error(`${id} looks blank (${colours} colours)`);
    }
  });
}
// The benchmark hooks of the Quantize page's wasm (scripts/bench_release_wasm.mjs measures with them)
// run every scheme in the release build: a few blocks each, to keep that benchmark working.
await check('quant-bench-hooks', 800, '?tab=quant&scheme=q8_0&schemes=q8_0', async (page) => {
  await text(page, 'sqnr-q8_0');
  const rates = await page.evaluate((list) => list.flatMap((s) => [
    [`${s} quantize`, window.wasmBindings.bench_quantize(s, 1 << 16, 1)],
    [`${s} lab`, window.wasmBindings.bench_lab(s, 1 << 16, 1)],
  ]), facts.schemes);
  for (const [what, r] of rates) if (!(r > 0 && Number.isFinite(r))) throw new Error(`${what}: no rate (${r})`);
});
await check('bits-embed', 800, '?tab=bits&x=448&fmt=f8e4m3&embed=1', async (page) => {
  expectEq(await text(page, 'stored-f8e4m3'), '448', 'E4M3 max');
  if (await page.locator('header.top').count()) throw new Error('embed mode shows the site header');
});
await check('bits-bad-url', 800, '?tab=bits&x=banana&fmt=f99', async (page) => {
  const notes = await text(page, 'url-notes');
  if (!notes.includes('banana') || !notes.includes('f99')) throw new Error(`notes do not name the bad values: ${notes}`);
  expectEq(await text(page, 'stored-bf16'), '0.10009765625', 'default value after a bad URL');
});
// Every Learn chapter renders its heading, widget and numbers with no console error: each opened
// by its own link at 360 px, then all reached in one page through the "next" button, at 1280 px
// and in dark mode at 390 px (for the screenshots).
const learnChapter = (n) => async (page) => {
  const heading = await text(page, 'learn-heading');
  if (!heading.startsWith(`${n}. `)) throw new Error(`heading: ${heading}`);
  await text(page, 'learn-widget');
  await text(page, 'learn-try');
  if (n === 1) expectEq(await text(page, 'learn-bytes-f32'), '4.00 GB', '1B parameters in FP32');
  if (await page.locator('[data-testid="learn-bar"]').count()) {
    const colours = await canvasInk(page, 'learn-bar');
    if (colours < 4) throw new Error(`the chapter's memory bar looks blank (${colours} colours)`);
  }
};
const chapters = Array.from({ length: facts.chapters }, (_, i) => i + 1);
for (const n of chapters) await check(`learn-${n}-360-light`, 360, `?tab=learn&step=${n}`, learnChapter(n));
for (const [width, scheme] of [[1280, 'light'], [390, 'dark']]) {
  await checkSteps(chapters.map((n) => [`learn-${n}-${width}-${scheme}`, async (page) => {
    if (n > 1) {
      await page.click('[data-testid="learn-next"]');
      await page.waitForFunction((p) => document.querySelector('[data-testid="learn-heading"]')?.textContent.startsWith(p), `${n}. `, { timeout: 20000 })
        .catch(async () => { throw new Error(`"next" did not open chapter ${n}: ${await text(page, 'learn-heading')}`); });
    }
    await learnChapter(n)(page);
  }]), width, '?tab=learn&step=1', scheme);
}
await check('learn-bad-step', 800, '?tab=learn&step=99', async (page) => {
  const notes = await text(page, 'url-notes');
  if (!notes.includes('showing chapter 1')) throw new Error(`notes: ${notes}`);
  if (!(await text(page, 'learn-heading')).startsWith('1. ')) throw new Error('a bad step did not open chapter 1');
});

// The Quantize lab off the page's thread: a 4M-value upload (16 MB .npy; LAB_VALUES sets another
// size; the 42M-value timing is scripts/bench_lab_upload_before_after.sh's), all schemes, then
// "per tensor" blocks, on the page's own thread (workers turned off: the path before workers) and
// in Web Workers, in one run. Records the time from the file's change event until the results are
// in, and the longest gap between animation frames meanwhile (target: at most 50 ms). Both paths
// must give the same table.
if (!process.env.ONLY || 'lab-bench'.startsWith(process.env.ONLY) || process.env.ONLY.startsWith('lab-bench')) {
  const { rmSync, mkdtempSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { writeBigNpy, FOURTEEN_SCHEMES: fourteen } = await import('./lab_bench_input.mjs');
  const dir = mkdtempSync(join(tmpdir(), 'bitbudget-lab-'));
  const file = join(dir, 'big.npy');
  const values = Number(process.env.LAB_VALUES ?? 4_000_000);
  writeBigNpy(file, values);
  const tables = {};
  const rowTexts = {};
  // The last run compares only the 14 schemes of the 5 s upload target, picked in the URL.
  for (const path of ['in-thread', 'workers', 'workers-14']) {
    const workers = path !== 'in-thread';
    await check(`lab-bench-${path}`, 1280, `?tab=quant&scheme=q8_0&tensor=normal${path === 'workers-14' ? fourteen : ''}`, async (page) => {
      await page.locator('[data-testid="sqnr-q8_0"]').waitFor({ timeout: 60000 });
      if (path === 'workers-14') {
        const count = await text(page, 'scheme-count');
        if (count !== `Schemes compared: 14 of ${facts.schemes.length}`) throw new Error(`schemes=: ${count}`);
      }
      await page.evaluate((on) => window.wasmBindings.set_lab_workers(on), workers);
      // From `start` (the file's change event, or now) until the lab has shown progress and then
      // finished: the time, and the longest gap between animation frames.
      const arm = () => page.evaluate(() => {
        const run = { gap: 0, seen: false };
        window.__lab = run;
        const start = () => {
          run.start = performance.now();
          let last = run.start;
          const frame = (t) => {
            const now = performance.now();
            run.gap = Math.max(run.gap, now - last);
            last = now;
            const busy = document.querySelector('[data-testid="quant-progress"]') !== null;
            run.seen ||= busy;
            if (run.seen && !busy) run.ms = now - run.start;
            else requestAnimationFrame(frame);
          };
          requestAnimationFrame(frame);
        };
        const input = document.querySelector('[data-testid="quant-file"]');
        input.addEventListener('change', start, { once: true, capture: true });
        run.now = start;
      });
      const done = async (what) => {
        await page.waitForFunction(() => window.__lab.ms !== undefined, null, { timeout: 280000, polling: 250 });
        const r = await page.evaluate(() => window.__lab);
        console.log(`     ${path}: ${what}: ${(r.ms / 1000).toFixed(2)} s, longest gap between frames ${r.gap.toFixed(0)} ms`);
      };
      await arm();
      await page.setInputFiles('[data-testid="quant-file"]', file);
      await done(`${(values / 1e6).toFixed(0)}M-value upload, ${path === 'workers-14' ? 'the 14 schemes' : 'every scheme'} (parse included)`);
      const status = await text(page, 'tensor-status');
      if (!status.includes(`${values.toLocaleString('en-US')} values`)) throw new Error(`upload not in use: ${status}`);
      tables[path] = await page.locator('[data-testid="quant-table"]').innerText();
      rowTexts[path] = await page.locator('[data-testid="quant-table"] tbody tr').allInnerTexts();
      await arm();
      await page.evaluate(() => window.__lab.now());
      await page.click('[data-testid="block-per-tensor"]');
      await done('the same with "per tensor" blocks');
      const ranOn = await text(page, 'ran-on');
      const expected = workers ? /, in \d+ Web Workers?\.$/ : /own thread: Web Workers are turned off for this page\.$/;
      if (!expected.test(ranOn)) throw new Error(`where the lab ran: ${ranOn}`);
    });
  }
  // Picking schemes changes which rows are computed, never their numbers.
  const full = new Set(rowTexts.workers ?? []);
  const picked = rowTexts['workers-14'] ?? [];
  const missing = picked.filter((row) => !full.has(row));
  if (rowTexts['workers-14'] !== undefined && (picked.length !== 14 || missing.length)) {
    const why = `${picked.length} rows; not in the full table: ${missing.join(' | ')}`;
    failures.push(`lab-bench: the 14 schemes' rows differ from the full table's (${why})`);
    console.log(`FAIL lab-bench: the 14 schemes' rows differ from the full table's (${why})`);
  }
  if (tables['in-thread'] !== undefined && tables['in-thread'] !== tables.workers) {
    failures.push('lab-bench: the workers\' table differs from the page thread\'s');
    console.log('FAIL lab-bench: the workers\' table differs from the page thread\'s');
  }
  rmSync(dir, { recursive: true, force: true });
}

// The Quantize lab's GPU path in the release build, with Chromium's WebGPU on SwiftShader (a CPU
// emulation of a GPU): the GPU switch gives the CPU's table. scripts/bench_release_wasm.mjs --only
// gpu times the same path.
const webgpu = await chromium.launch(webgpuLaunchOptions());
await check('quant-gpu-lab', 1280, '?tab=quant&scheme=q4_0&tensor=laplace&seed=4&schemes=q4_0,q8_0', async (page) => {
  const status = await text(page, 'gpu-status');
  await page.waitForFunction(() => document.querySelector('[data-testid="gpu-status"]').textContent.startsWith('GPU: '), null, { timeout: 30000 })
    .catch(() => { throw new Error(`no WebGPU adapter: ${status}`); });
  const ranOn = (prefix) => page.waitForFunction((p) => document.querySelector('[data-testid="ran-on"]')?.textContent.startsWith(p), prefix, { timeout: 60000 })
    .catch(async () => { throw new Error(`where the lab ran: ${await text(page, 'ran-on')} (waited for "${prefix}")`); });
  await ranOn('Computed on the CPU');
  const onCpu = await page.locator('[data-testid="quant-table"] tbody').innerText();
  await page.click('[data-testid="device-gpu"]');
  await ranOn('Computed on the GPU');
  expectEq(await page.locator('[data-testid="quant-table"] tbody').innerText(), onCpu, 'the table on the GPU');
}, 'light', webgpu);
await webgpu.close();

await browser.close();
server.close();
console.log(`${passed} passed, ${failures.length} failed`);
process.exit(failures.length ? 1 : 0);
