// Time to usable of each embedded widget on Lighthouse's mobile profile, applied through the Chrome
// DevTools Protocol: 1474.56 kbit/s down, 675 kbit/s up, 562.5 ms request latency, CPU slowed 4×,
// a cold cache, every build served gzip-compressed (and cacheable, as hosts serve it) under a
// sub-path. "Usable": the widget's first answer is on screen and its controls work (Memory's
// verdict, Bits' BF16 cell, the lab's controls (an embed folds them under one line), a Learn chapter's heading); for the lab also
// its first results, which wait for its Web Worker. Also the bytes transferred until usable. A benchmark, not a test: it prints, it does not
// judge. Compare builds in one run:
//   node scripts/bench_time_to_usable.mjs before=/path/to/old/dist after=dist [--runs 3]
import { createRequire } from 'node:module';
import { serveDist, launchOptions } from '../tests/e2e/serve.mjs';

const require = createRequire(new URL('../tools/package.json', import.meta.url));
const { chromium } = require('playwright-core');

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const runs = runsAt >= 0 ? Number(args.splice(runsAt, 2)[1]) : 3;
const builds = (args.length ? args : ['dist']).map((a) => (a.includes('=') ? a.split(/=(.*)/s).slice(0, 2) : [a, a]));

const WIDGETS = [
  ['Memory', '?tab=memory&model=llama-3-8b&mode=lora&gpu=rtx-4090&embed=1', '[data-testid="verdict"]'],
  ['Bits', '?tab=bits&x=0.1&fmt=bf16&embed=1', '[data-testid="stored-bf16"]'],
  ['Quantize', '?tab=quant&embed=1', '[data-testid="embed-more-controls"] > summary'],
  ['Quantize results', '?tab=quant&embed=1', '[data-testid="sqnr-q8_0"]'],
  ['Learn', '?tab=learn&step=1&embed=1', '[data-testid="learn-page"] h3'],
];
const PROFILE = { offline: false, latency: 562.5, downloadThroughput: (1474.56 * 1024) / 8, uploadThroughput: (675 * 1024) / 8 };

const browser = await chromium.launch(launchOptions());
const results = {};
for (const [label, dist] of builds) {
  const { server, base } = await serveDist(dist, '/blog/widgets/', {}, { gzip: true, cache: true });
  for (const [name, url, usable] of WIDGETS) {
    const times = [];
    let bytes = 0;
    for (let i = 0; i < runs; i++) {
      const context = await browser.newContext({ viewport: { width: 390, height: 800 }, deviceScaleFactor: 1 });
      const page = await context.newPage();
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', PROFILE);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
      let transferred = 0;
      cdp.on('Network.loadingFinished', (e) => { transferred += e.encodedDataLength; });
      await page.goto(base + url, { waitUntil: 'commit' });
      await page.locator(usable).first().waitFor({ state: 'visible', timeout: 120000 });
      times.push(await page.evaluate(() => performance.now()));
      bytes = transferred;
      await context.close();
    }
    times.sort((a, b) => a - b);
    results[`${label} ${name}`] = { median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1], bytes };
  }
  server.close();
}
await browser.close();
console.log(`time to usable, Lighthouse mobile profile through CDP, median of ${runs} cold loads at 390 px`);
console.log('| build | widget | median s | min s | max s | KB transferred until usable |');
console.log('| --- | --- | ---: | ---: | ---: | ---: |');
for (const [key, r] of Object.entries(results)) {
  const [build, widget] = key.split(/ (.*)/s);
  console.log(`| ${build} | ${widget} | ${(r.median / 1000).toFixed(2)} | ${(r.min / 1000).toFixed(2)} | ${(r.max / 1000).toFixed(2)} | ${(r.bytes / 1000).toFixed(0)} |`);
}
