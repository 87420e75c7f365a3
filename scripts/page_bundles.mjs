// Trunk post_build hook. A release build's text files are minified first (minify_build.mjs);
// csp_hashes.mjs comes last, so it hashes the final script. Each page's binary is a worker-type
// link, which Trunk writes without a content hash (bitbudget-bits.js, bitbudget-bits_bg.wasm). This renames
// both to one hash of their contents, as Trunk names a main app, so that a browser never pairs a
// cached JS glue with a newer wasm, and writes the names into index.html's boot script
// (`const BUNDLES = {}`), the light embeds' and the on-demand modules' (`MODULES`) too. Fails the build when a page's files or the marker are missing.
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { bootList } from './boot_lists.mjs';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('page_bundles.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const file = join(dir, 'index.html');
const source = readFileSync(file, 'utf8');
const minify = process.env.TRUNK_PROFILE === 'release' ? await import('./minify_build.mjs') : null;
const html = minify ? minify.minifyStyleAndPage(dir, source) : source;
const bundles = {};
// Each page, the light embed (`<page>-embed`) of each page in LIGHT, and each on-demand module.
const [pages, light, modules] = ['PAGES', 'LIGHT', 'MODULES'].map((name) => bootList(html, name, file));
for (const page of [...pages, ...light.map((p) => `${p}-embed`), ...modules]) {
  const name = `bitbudget-${page}`;
  const built = readdirSync(dir).filter((f) => new RegExp(`^${name}(-[0-9a-f]+)?\\.js$`).test(f));
  if (built.length !== 1) throw new Error(`${name}: expected one JS file in ${dir}, found ${built.length}`);
  const from = [built[0], built[0].replace(/\.js$/, '_bg.wasm')];
  if (minify) await minify.minifyModuleFile(join(dir, from[0]));
  const [js, wasm] = from.map((f) => readFileSync(join(dir, f)));
  const hash = createHash('sha256').update(js).update(wasm).digest('hex').slice(0, 16);
  bundles[page] = [`${name}-${hash}.js`, `${name}-${hash}_bg.wasm`];
  from.forEach((f, i) => renameSync(join(dir, f), join(dir, bundles[page][i])));
}
const marker = 'const BUNDLES = {};';
if (!html.includes(marker)) throw new Error(`no "${marker}" in the boot script of ${file}`);
// The main app's link stays in the page when Trunk injects no loader: drop it.
const done = html.replace(marker, `const BUNDLES = ${JSON.stringify(bundles)};`).replace(/\s*<link data-trunk rel="rust"[^>]*>/g, '');
writeFileSync(file, done);
console.log(`page_bundles: ${Object.values(bundles).map(([js]) => js).join(', ')}`);
await import('./csp_hashes.mjs');
