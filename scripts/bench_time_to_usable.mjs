// Time to usable of each embedded widget on Lighthouse's mobile profile, applied through the Chrome
// DevTools Protocol: 1474.56 kbit/s down, 675 kbit/s up, 562.5 ms request latency, CPU slowed 4×,
// a cold cache, every build served gzip-compressed (and cacheable, as hosts serve it) under a
// sub-path. "Usable": the widget's first answer is on screen and its controls work (Memory's
// verdict, Bits' BF16 cell, the lab's controls (an embed folds them under one line), Serve's
// verdict, a Learn chapter's heading); for the lab also its first results, which wait for its Web
// Worker. The page itself marks the time: the first animation frame after the one in which the
// mark became visible (so that frame has been painted), read from `performance.now()` (0 = the
// navigation's start); asking from outside instead adds the test driver's round trips through a
// slowed CPU (0.1 to 0.2 s). Also the bytes transferred until usable. The builds take turns, run
// by run, so that a slower minute of the machine does not fall on one build. A benchmark, not a
// test: it prints, it does not judge. Compare builds in one run:
//   node scripts/bench_time_to_usable.mjs before=/path/to/old/dist after=dist [--runs 3] [--only Bits]
import { createRequire } from 'node:module';
import { serveDist, launchOptions } from '../tests/e2e/serve.mjs';

const require = createRequire(new URL('../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 3;
const onlyAt = args.indexOf('--only');
const only = onlyAt >= 0 ? new RegExp(args.splice(onlyAt, 2)[1]) : null;
const builds = (args.length ? args : ['dist']).map((a) => (a.includes('=') ? a.split(/=(.*)/s).slice(0, 2) : [a, a]));

const WIDGETS = [
  ['Memory', '?tab=memory&model=llama-3-8b&mode=lora&gpu=rtx-4090&embed=1', '[data-testid="verdict"]'],
  ['Bits', '?tab=bits&x=0.1&fmt=bf16&embed=1', '[data-testid="stored-bf16"]'],
  ['Quantize', '?tab=quant&embed=1', '[data-testid="embed-more-controls"] > summary'],
  ['Quantize results', '?tab=quant&embed=1', '[data-testid="sqnr-q8_0"]'],
  ['Serve', '?tab=serve&embed=1', '[data-testid="serve-verdict"]'],
  ['Learn', '?tab=learn&step=1&embed=1', '[data-testid="learn-page"] h3'],
];
const PROFILE = { offline: false, latency: 562.5, downloadThroughput: (1474.56 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 };

// Runs in the page from its first script on: marks `window.__usable` as described above.
function markUsable(selector) {
  const look = () => {
    const mark = document.querySelector(selector);
    if (mark?.checkVisibility()) requestAnimationFrame(() => { window.__usable = performance.now(); });
    else requestAnimationFrame(look);
  };
  requestAnimationFrame(look);
}

async function timeOne(browser, base, url, usable) {
  const context = await browser.newContext({ viewport: { width: 390, height: 800 }, deviceScaleFactor: 1 });
  const page = await context.newPage();
  await page.addInitScript(markUsable, usable);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', PROFILE);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  let transferred = 0;
  cdp.on('Network.loadingFinished', (e) => { transferred += e.encodedDataLength; });
  await page.goto(base + url, { waitUntil: 'commit' });
  await page.waitForFunction(() => window.__usable, null, { timeout: 120000, polling: 100 });
  const time = await page.evaluate(() => window.__usable);
  const bytes = transferred;
  await context.close();
  return { time, bytes };
}

const browser = await chromium.launch(launchOptions());
const served = [];
for (const [label, dist] of builds) served.push([label, await serveDist(dist, '/blog/widgets/', {}, { gzip: true, cache: true })]);
const samples = {};
for (let i = 0; i < runs; i++) {
  for (const [label, { base }] of served) {
    for (const [name, url, usable] of WIDGETS.filter(([name]) => !only || only.test(name))) {
      const { time, bytes } = await timeOne(browser, base, url, usable);
      (samples[`${label} ${name}`] ??= { times: [], bytes }).times.push(time);
    }
  }
}
for (const [, { server }] of served) server.close();
await browser.close();
const results = {};
for (const [key, { times, bytes }] of Object.entries(samples)) {
  times.sort((a, b) => a - b);
  results[key] = { median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1], bytes };
}
console.log(`time to usable, Lighthouse mobile profile through CDP, median of ${runs} cold loads at 390 px`);
console.log('| build | widget | median s | min s | max s | KB transferred until usable |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const [key, r] of Object.entries(results)) {
  const [build, widget] = key.split(/ (.*)/s);
  console.log(`| ${build} | ${widget} | ${(r.median / 1000).toFixed(2)} | ${(r.min / 1000).toFixed(2)} | ${(r.max / 1000).toFixed(2)} | ${(r.bytes / 1000).toFixed(0)} |`);
}
