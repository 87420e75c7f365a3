// End-to-end checks of the release build (dist/) served under a sub-path, in headless Chromium:
// every page and widget at 360/390/1280 px, share links, embed snippet and clipboard fallback,
// themes, two widgets resizing in a host page (both message forms), bad URLs and uploads, the
// Content-Security-Policy, no request off the origin, an axe-core scan in light and dark, and the
// byte budgets of each page (tests/e2e/bundles.mjs; a page over its budget fails), time to first render.
// Usage: node tests/e2e/widgets.mjs [--screenshots DIR]
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { consoleProblem, serveDist, launchOptions } from './serve.mjs';
import { checkBudgets, pageWeights } from './bundles.mjs';

const require = createRequire(new URL('../../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');
const axeSource = await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
const facts = JSON.parse(await readFile(new URL('./facts.json', import.meta.url), 'utf8'));

// DIST overrides where the build is (default: the repository's dist/).
const dist = process.env.DIST ?? new URL('../../dist/', import.meta.url).pathname;
const shotsAt = process.argv.indexOf('--screenshots');
const shotsDir = shotsAt > 0 ? process.argv[shotsAt + 1] : null;
const PREFIX = '/tools/bitbudget/';

// Two host pages, as a blog would have them: one uses the shipped host script, the other only a
// Datawrapper-style listener (what platforms that already resize Datawrapper charts run).
const hostPage = (listener) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
<body style="margin:0;background:#fff;font:16px sans-serif"><p>A blog post.</p>
<iframe id="a" src="${PREFIX}?tab=memory&model=llama-3-8b&mode=lora&gpu=rtx-4090&embed=1&id=a" title="bitbudget: Memory widget" height="300" style="border:0;width:100%"></iframe>
<p>Between the widgets.</p>
<iframe id="b" src="${PREFIX}?tab=bits&x=0.1&fmt=bf16&embed=1&id=b&theme=dark" title="bitbudget: Bits widget" height="300" style="border:0;width:100%"></iframe>
${listener}</body></html>`;
const datawrapperListener = `<script>window.addEventListener("message",function(e){var d=e.data&&e.data["datawrapper-height"];if(!d)return;
var f=document.querySelectorAll("iframe");for(var k in d)for(var i=0;i<f.length;i++)if(f[i].contentWindow===e.source)f[i].style.height=d[k]+"px";});</script>`;
const { server, origin, base } = await serveDist(dist, PREFIX, {
  '/host-script.html': ['text/html', hostPage(`<script src="${PREFIX}embed.js"></script>`)],
  '/host-datawrapper.html': ['text/html', hostPage(datawrapperListener)],
  // A serving link with a value the Memory page cannot read: its notes stay, in the widget's frame.
  '/host-moved.html': ['text/html', `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="data:,"></head>
<body style="margin:0"><iframe id="m" src="${PREFIX}?tab=memory&model=llama-3-8b&mode=inference&batch=banana&gpu=a100-80gb&embed=1&id=m" title="bitbudget: Memory widget" height="300" style="border:0;width:100%"></iframe>
<script src="${PREFIX}embed.js"></script></body></html>`],
});

const browser = await chromium.launch(launchOptions());
const failures = [];
const offOrigin = new Set();
let passed = 0;

/// Opens a page (a fresh context: no storage carried over), collects console errors and every
/// request, runs `body`, and checks no console error, no panic, no horizontal overflow.
const only = process.env.ONLY ? new RegExp(process.env.ONLY) : null; // run a subset while debugging
async function check(name, { width = 1280, colorScheme = 'light', url = null, allowErrors = false, context: ctxOptions = {} } = {}, body = async () => {}) {
  if (only && !only.test(name)) return;
  const started = performance.now();
  const context = await browser.newContext({ viewport: { width, height: 800 }, deviceScaleFactor: 1, colorScheme, ...ctxOptions });
  const page = await context.newPage();
  const errors = [];
  // Chromium's hint about the suite's own pixel reads is not the app's warning.
  page.on('console', (m) => { if (consoleProblem(m)) errors.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => errors.push(`page error: ${e.message}`));
  context.on('request', (r) => { const u = r.url(); if (!u.startsWith(origin + '/') && !/^(data|blob):/.test(u)) offOrigin.add(`${name}: ${u}`); });
  try {
    if (url !== null) {
      await page.goto(base + url, { waitUntil: 'load' });
      await page.locator('main').first().waitFor({ timeout: 20000 });
    }
    await body(page, context);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) throw new Error(`the page is ${overflow}px wider than the ${width}px window (horizontal scrolling)`);
    if (errors.length && !allowErrors) throw new Error(`${errors.length} console errors: ${errors.slice(0, 3).map((e) => e.slice(0, 240)).join(' | ')}`);
    if (shotsDir) await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
    passed += 1;
    console.log(`ok   ${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  } catch (e) {
    failures.push(`${name}: ${e.message.split('\n')[0]}`);
    console.log(`FAIL ${name}: ${e.message.split('\n')[0]}`);
  } finally {
    await context.close();
  }
}

const expect = (ok, what) => { if (!ok) throw new Error(what); };
const byId = (page, id) => page.locator(`[data-testid="${id}"]`).first();
async function text(page, id) {
  await byId(page, id).waitFor({ timeout: 20000 });
  return (await byId(page, id).textContent()).trim();
}
const settle = (page) => page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 50))));
// The page writes its state to the address bar within 150 ms of a change (browser::URL_WRITE_DELAY_MS).
const urlOnceWritten = async (page) => { await page.waitForTimeout(250); return page.url(); };

// ---- Budgets -------------------------------------------------------------------------------------
{
  const { lines, broken } = checkBudgets(await pageWeights(dist));
  lines.forEach((l) => console.log(l));
  broken.forEach((b) => failures.push(`budget: ${b}`));
}
{
  const times = [];
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addInitScript(() => {
    new MutationObserver((_, obs) => {
      if (document.querySelector('[data-testid="verdict"]')) { window.__firstRender = performance.now(); obs.disconnect(); }
    }).observe(document, { childList: true, subtree: true });
  });
  for (let i = 0; i < 7; i++) {
    const page = await context.newPage();
    await page.goto(base + '?tab=memory', { waitUntil: 'load' });
    await page.waitForFunction(() => window.__firstRender !== undefined, null, { timeout: 20000 });
    times.push(await page.evaluate(() => window.__firstRender));
    await page.close();
  }
  await context.close();
  times.sort((a, b) => a - b);
  console.log(`budget: time to first render (Memory verdict on screen, from navigation start, localhost): median ${times[3].toFixed(0)} ms over 7 loads (min ${times[0].toFixed(0)}, max ${times[6].toFixed(0)})`);
}

// ---- oEmbed discovery and the host script ship in dist/ ------------------------------------------
await check('oembed-and-host-script-ship', {}, async (page) => {
  const index = await (await fetch(base)).text();
  expect(/<link rel="alternate" type="application\/json\+oembed" href="oembed.json"/.test(index), 'index.html has no oEmbed discovery link');
  const oembed = await (await fetch(base + 'oembed.json')).json();
  expect(oembed.version === '1.0' && oembed.type === 'rich' && /<iframe [^>]*title="[^"]+"/.test(oembed.html), `oembed.json: ${JSON.stringify(oembed)}`);
  const script = await fetch(base + 'embed.js');
  expect(script.ok && (await script.text()).includes('bitbudget-height'), 'embed.js is not in dist/');
});

// ---- Every page and widget at three widths ------------------------------------------------------
const pages = { memory: '?tab=memory', serve: '?tab=serve', bits: '?tab=bits', quant: '?tab=quant', learn: '?tab=learn&step=4' };
const ready = { memory: 'verdict', serve: 'serve-verdict', bits: 'value-input', quant: 'quant-table', learn: 'learn-heading' };
for (const [pageName, url] of Object.entries(pages)) {
  for (const embed of [false, true]) {
    for (const width of [360, 390, 1280]) {
      const name = `${pageName}${embed ? '-embed' : ''}-${width}`;
      await check(name, { width, url: url + (embed ? '&embed=1' : '') }, async (page) => {
        await byId(page, ready[pageName]).waitFor({ timeout: 30000 });
        const header = await page.locator('header.top').count();
        expect(embed ? header === 0 : header === 1, embed ? 'the widget shows the site header' : 'the site header is missing');
        if (embed) {
          const href = await byId(page, 'open-full').getAttribute('href');
          expect(href.startsWith(PREFIX + '?') && !href.includes('embed=') && href.includes(`tab=${pageName}`), `"open in bitbudget" links to ${href}`);
        } else {
          expect(await byId(page, 'embed-button').count() === 1, 'no Embed button');
        }
        await settle(page);
      });
    }
  }
}

// ---- Phones: the verdict stays in sight while the controls change it ----------------------------
await check('memory-390-verdict-strip', { width: 390, url: '?tab=memory&model=llama-3-8b&gpu=rtx-4090' }, async (page) => {
  await byId(page, 'verdict').waitFor({ timeout: 20000 });
  await byId(page, 'input-dp').scrollIntoViewIfNeeded();
  await byId(page, 'input-dp').fill('2');
  await settle(page);
  const strip = await byId(page, 'verdict-strip').boundingBox();
  expect(strip && Math.abs(strip.y) < 1, `the strip is not at the top: ${JSON.stringify(strip)}`);
  expect((await text(page, 'verdict-strip')).startsWith('Does not fit:'), 'the strip does not give the verdict');
  await page.locator('[data-testid="verdict-strip"] a').click();
  await settle(page);
  const verdict = await byId(page, 'verdict').boundingBox();
  expect(verdict && verdict.y >= 0 && verdict.y < 800, `"Results ↑" left the verdict at ${verdict && verdict.y}`);
});

// ---- Share links round-trip ---------------------------------------------------------------------
await check('share-memory', { url: '?tab=memory&model=llama-3-8b&zero=3&dp=8&gpu=h100-80gb' }, async (page, context) => {
  const input = byId(page, 'input-dp');
  await input.fill('16');
  await settle(page);
  const total = await byId(page, 'bytes-total').getAttribute('data-bytes');
  const shared = await urlOnceWritten(page);
  expect(shared.includes('dp=16'), `the URL does not carry the change: ${shared}`);
  const again = await context.newPage();
  await again.goto(shared);
  await byId(again, 'bytes-total').waitFor({ timeout: 20000 });
  expect(await byId(again, 'input-dp').inputValue() === '16', 'the shared link lost dp=16');
  expect(await byId(again, 'bytes-total').getAttribute('data-bytes') === total, 'the shared link gives another total');
});
await check('share-bits', { url: '?tab=bits' }, async (page, context) => {
  await byId(page, 'value-input').fill('-2.5e-3');
  await settle(page);
  const stored = await text(page, 'stored-bf16');
  const again = await context.newPage();
  await again.goto(await urlOnceWritten(page));
  expect(await text(again, 'stored-bf16') === stored, `the shared link shows ${await text(again, 'stored-bf16')}, not ${stored}`);
});

// A post comparing two families embeds exactly those rows; picking a scheme in the widget is
// carried by its link.
await check('share-quant-schemes', { url: '?tab=quant&tensor=normal&schemes=k-quants,nf4&embed=1' }, async (page, context) => {
  await byId(page, 'sqnr-q4_k').waitFor({ timeout: 30000 });
  const rows = await page.locator('[data-testid="quant-table"] tbody tr').count();
  expect(rows === 7, `the widget compares ${rows} schemes, not the 6 K-quants and NF4`);
  // The widget opens at its table; the controls are one click away.
  expect(!(await byId(page, 'scheme-count').isVisible()), 'the embedded widget opens with its controls showing');
  await page.locator('[data-testid="embed-more-controls"] > summary').click();
  expect(await text(page, 'scheme-count') === `Schemes compared: 7 of ${facts.schemes.length}`, `the picker does not say 7 of ${facts.schemes.length}`);
  await page.locator('[data-testid="scheme-count"]').click();
  await byId(page, 'compare-q8_0').check();
  await byId(page, 'sqnr-q8_0').waitFor({ timeout: 30000 });
  const href = await byId(page, 'open-full').getAttribute('href');
  expect(href.includes('schemes=q8_0,k-quants,nf4'), `"open in bitbudget" does not carry the schemes: ${href}`);
  const again = await context.newPage();
  await again.goto(new URL(href, page.url()).href);
  await byId(again, 'sqnr-q8_0').waitFor({ timeout: 30000 });
  expect(await again.locator('[data-testid="quant-table"] tbody tr').count() === 8, 'the full page lost the picked schemes');
});

// ---- Embed button, clipboard and its fallback ---------------------------------------------------
await check('embed-button-copies', { url: '?tab=memory&model=llama-3-8b&zero=3&dp=4&gpu=h100-80gb', context: { permissions: ['clipboard-read', 'clipboard-write'] } }, async (page, context) => {
  await byId(page, 'verdict').waitFor({ timeout: 20000 }).catch(() => { throw new Error('no verdict before Embed'); });
  await byId(page, 'embed-button').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="embed-status"]')?.textContent.includes('Copied'), null, { timeout: 5000 });
  const snippet = await byId(page, 'embed-snippet').inputValue();
  const clip = await page.evaluate(() => navigator.clipboard.readText());
  expect(clip === snippet, 'the clipboard does not hold the snippet');
  expect(/<iframe src="[^"]+" title="bitbudget: Memory widget" width="100%" height="\d+"/.test(snippet), `snippet: ${snippet}`);
  expect(snippet.includes(`<script src="${base}embed.js"`), `the snippet does not load the host script from ${base}: ${snippet}`);
  const src = snippet.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  expect(src.startsWith(base) && src.includes('dp=4') && src.includes('embed=1'), `the widget URL lost the state: ${src}`);
  const widget = await context.newPage();
  await widget.goto(src);
  await byId(widget, 'verdict').waitFor({ timeout: 20000 }).catch(() => { throw new Error(`the snippet's widget ${src} shows no verdict`); });
  await widget.locator('[data-testid="embed-more-controls"] > summary').click();
  expect(await byId(widget, 'input-dp').inputValue() === '4', `the widget from the snippet lost dp=4 (${widget.url()})`);
});
await check('embed-button-clipboard-refused', { url: '?tab=bits' }, async (page) => {
  await page.evaluate(() => { navigator.clipboard.writeText = () => Promise.reject(new Error('denied')); });
  await byId(page, 'embed-button').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="embed-status"]')?.textContent.includes('Not copied'), null, { timeout: 5000 });
  expect(await byId(page, 'embed-snippet').isVisible(), 'the snippet is not shown when the clipboard is refused');
  expect((await byId(page, 'embed-snippet').inputValue()).includes('tab=bits'), 'the fallback snippet is not the Bits widget');
});

// ---- Themes --------------------------------------------------------------------------------------
const bg = (page) => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
const DARK_BG = 'rgb(21, 22, 24)';
await check('theme-url-beats-system', { url: '?tab=memory&theme=dark', colorScheme: 'light' }, async (page) => {
  await byId(page, 'verdict').waitFor();
  expect(await bg(page) === DARK_BG, `theme=dark on a light system shows ${await bg(page)}`);
  const pixel = () => byId(page, 'memory-bar').evaluate((c) => [...c.getContext('2d').getImageData(2, 2, 1, 1).data].slice(0, 3).join(','));
  await settle(page);
  const dark = await pixel();
  await page.selectOption('[data-testid="theme-select"]', 'light');
  await settle(page);
  expect(await bg(page) !== DARK_BG, 'choosing Light keeps the dark background');
  expect(await pixel() !== dark, `the chart was not redrawn in the light theme (corner ${dark})`);
  const url = await urlOnceWritten(page);
  expect(url.includes('theme=light'), `the URL keeps the old theme: ${url}`);
});
// The palette's stylesheet (assets/palette.css) colours the page before its wasm has run (here:
// never, scripts off), so a dark system gets no white flash.
await check('theme-dark-before-the-wasm-runs', { colorScheme: 'dark', context: { javaScriptEnabled: false } }, async (page) => {
  await page.goto(base + '?tab=memory', { waitUntil: 'load' });
  expect(await bg(page) === DARK_BG, `a dark system sees ${await bg(page)} until the wasm runs`);
});
await check('theme-light-on-dark-system', { url: '?tab=bits&theme=light&embed=1', colorScheme: 'dark' }, async (page) => {
  await byId(page, 'value-input').waitFor();
  expect(await bg(page) !== DARK_BG, 'theme=light on a dark system shows the dark background');
});
await check('theme-menu-is-remembered', { url: '?tab=bits' }, async (page) => {
  await page.selectOption('[data-testid="theme-select"]', 'dark');
  await settle(page);
  expect(await bg(page) === DARK_BG, 'choosing Dark does not darken the page');
  await page.goto(base + '?tab=memory');
  await byId(page, 'verdict').waitFor();
  expect(await bg(page) === DARK_BG, 'the choice is forgotten on the next page');
  expect(await page.locator('[data-testid="theme-select"]').inputValue() === 'dark', 'the menu does not show the stored choice');
});

// ---- Host pages with two widgets ----------------------------------------------------------------
/// Waits until iframe `id` of the host page is as tall as its widget's content (not the 300 px it
/// was given), and returns that height.
async function fitsContent(page, id) {
  const frame = page.frameLocator(`#${id}`);
  await frame.locator('main').waitFor({ timeout: 20000 });
  await page.waitForFunction(async (id) => {
    const f = document.getElementById(id);
    const app = f.contentDocument?.querySelector('.app');
    return app && Math.abs(f.getBoundingClientRect().height - Math.ceil(app.getBoundingClientRect().height)) <= 1;
  }, id, { timeout: 10000 }).catch(() => {});
  const [outer, inner] = await page.evaluate((id) => {
    const f = document.getElementById(id);
    return [f.getBoundingClientRect().height, f.contentDocument.querySelector('.app').getBoundingClientRect().height];
  }, id);
  expect(Math.abs(outer - Math.ceil(inner)) <= 1 && outer !== 300, `iframe ${id} is ${outer}px tall for ${inner}px of content`);
  return outer;
}
await check('host-moved', { width: 700 }, async (page) => {
  await page.goto(`${origin}/host-moved.html`);
  await fitsContent(page, 'm');
  const notes = await page.frameLocator('#m').locator('[data-testid="url-notes"]').innerText();
  expect(notes.includes('banana'), `the note does not name the bad value: ${notes}`);
});
for (const host of ['host-script', 'host-datawrapper']) {
  await check(host, { width: 700 }, async (page) => {
    await page.goto(`${origin}/${host}.html`);
    const fits = (id) => fitsContent(page, id);
    await fits('a');
    await fits('b');
    const before = await fits('a');
    // The README's picture of two widgets in a plain host page.
    if (shotsDir && host === 'host-script') await page.screenshot({ path: join(shotsDir, 'embed-host.png'), fullPage: true, clip: { x: 0, y: 0, width: 700, height: 1500 } });
    // A custom model adds its architecture fields to the controls, and training adds gradients,
    // optimizer states and the step time: the widget's height changes and the host follows it.
    await page.frameLocator('#a').locator('[data-testid="embed-more-controls"] > summary').click();
    await page.frameLocator('#a').locator('[data-testid="input-model"]').selectOption('custom');
    await page.frameLocator('#a').locator('[data-testid="input-mode"]').selectOption('train');
    await page.waitForTimeout(300);
    const after = await fits('a');
    expect(after !== before, `a custom model in training did not change the widget's height (${before}px → ${after}px)`);
  });
}

// ---- Bad input keeps the page usable ------------------------------------------------------------
await check('bad-url-parameters', { url: '?tab=bits&x=banana&fmt=f99&theme=purple&id=%3Cscript%3E&embed=maybe' }, async (page) => {
  const notes = await text(page, 'url-notes');
  for (const bad of ['banana', 'f99', 'purple', '<script>', 'maybe']) expect(notes.includes(bad), `the notes do not name ${bad}: ${notes}`);
  await byId(page, 'value-input').fill('448');
  await settle(page);
  expect(await text(page, 'stored-f8e4m3') === '448', 'the page is not usable after a bad URL');
});
await check('bad-upload', { url: '?tab=quant' }, async (page) => {
  await byId(page, 'quant-table').waitFor({ timeout: 30000 });
  await byId(page, 'quant-file').setInputFiles({ name: 'broken.npy', mimeType: 'application/octet-stream', buffer: Buffer.from('\x93NUMPY this is not a header') });
  const error = await text(page, 'upload-error');
  expect(error.includes('broken.npy'), `the message does not name the file: ${error}`);
  await byId(page, 'quant-scheme').selectOption('q8_0').catch(() => {});
  expect(await byId(page, 'quant-table').isVisible(), 'the lab is gone after a bad upload');
});
await check('oversize-upload', { url: '?tab=quant' }, async (page) => {
  await byId(page, 'quant-table').waitFor({ timeout: 30000 });
  await page.evaluate(() => {
    const input = document.querySelector('[data-testid="quant-file"]');
    const dt = new DataTransfer();
    dt.items.add(new File([new ArrayBuffer(257 * 1024 * 1024)], 'huge.safetensors'));
    input.files = dt.files;
    input.dispatchEvent(new Event('change', { bubbles: true }));
  });
  const error = await text(page, 'upload-error');
  expect(error.includes('huge.safetensors') && error.includes('limit'), `no size message: ${error}`);
  expect(!page.url().includes('huge'), 'the upload entered the URL');
  expect(await page.evaluate(() => JSON.stringify(localStorage)).then((s) => !s.includes('huge')), 'the upload entered storage');
});

// ---- Content-Security-Policy is enforced --------------------------------------------------------
await check('csp-blocks-injection', { url: '?tab=bits', allowErrors: true }, async (page) => {
  await byId(page, 'value-input').waitFor();
  const result = await page.evaluate(async () => {
    const seen = [];
    document.addEventListener('securitypolicyviolation', (e) => seen.push(e.effectiveDirective));
    const s = document.createElement('script');
    s.textContent = 'window.__injected = 1';
    document.body.append(s);
    const img = document.createElement('img');
    img.src = 'http://203.0.113.7/pixel.png';
    document.body.append(img);
    const style = document.createElement('style');
    style.textContent = 'body { background: rgb(1, 2, 3) !important }';
    document.head.append(style);
    await new Promise((r) => setTimeout(r, 300));
    return { seen, ran: window.__injected === 1, bg: getComputedStyle(document.body).backgroundColor };
  });
  expect(!result.ran, 'an injected inline script ran');
  expect(result.bg !== 'rgb(1, 2, 3)', 'an injected <style> applied');
  for (const d of ['script-src-elem', 'img-src', 'style-src-elem']) expect(result.seen.includes(d), `no ${d} violation reported (${result.seen})`);
  for (const u of [...offOrigin]) if (u.startsWith('csp-blocks-injection: http://203.0.113.7')) offOrigin.delete(u); // blocked before the network
});

// ---- Accessibility: axe-core, light and dark ----------------------------------------------------
for (const [pageName, url] of Object.entries(pages)) {
  for (const embed of [false, true]) {
    for (const theme of ['light', 'dark']) {
      await check(`axe-${pageName}${embed ? '-embed' : ''}-${theme}`, { url: `${url}&theme=${theme}${embed ? '&embed=1' : ''}` }, async (page) => {
        await byId(page, ready[pageName]).waitFor({ timeout: 30000 });
        await settle(page);
        // Evaluated over the DevTools protocol, which the page's CSP does not govern.
        await page.evaluate(axeSource);
        const violations = await page.evaluate(async () => (await window.axe.run(document, { resultTypes: ['violations'] })).violations
          .filter((v) => v.impact === 'serious' || v.impact === 'critical')
          .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}${v.nodes.length > 3 ? ` and ${v.nodes.length - 3} more` : ''}`));
        expect(violations.length === 0, violations.join(' | '));
      });
    }
  }
}

if (offOrigin.size) failures.push(`requests left the origin: ${[...offOrigin].join(', ')}`);
else console.log('ok   no request left the origin');
await browser.close();
server.close();
console.log(`${passed} passed, ${failures.length} failed`);
for (const f of failures) console.log(`  ${f}`);
process.exit(failures.length ? 1 : 0);
