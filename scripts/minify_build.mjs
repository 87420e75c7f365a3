// What a release build serves as text, made smaller before page_bundles.mjs names the pages' files
// by their hash (a Trunk post_build hook runs both; Trunk's own minifier is off because it
// rewrites index.html's attributes, which the hooks and tests read). Every file here is on the
// path to a page's first paint, where each KB costs about 5 ms on a phone link
// (docs/benchmarks.md):
// - the wasm-bindgen JS glue of the pages, the light embeds and the on-demand modules: terser, as
//   an ES module, so its exports keep their names (the lab's worker's glue is a classic script,
//   whose one global a module would drop: it stays as it is);
// - the style sheets: csso without restructuring (rules keep their order), and the
//   Subresource Integrity hash Trunk wrote for each into index.html made anew;
// - index.html: its comments and the white space between its tags, outside scripts. The boot
//   script keeps its text: the tests and page_bundles.mjs read its lists.
// Throws when a minifier fails or is missing (scripts/setup.sh installs both into tools/).
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const require = createRequire(new URL('../tools/package.json', import.meta.url));
const { minify: terser } = require('terser');
const csso = require('csso');

/** The ES module `code`, minified (names mangled inside it, exports kept). */
async function minifyModule(code) {
  const out = await terser(code, { module: true, ecma: 2020, compress: { passes: 2 }, mangle: true, format: { comments: false } });
  if (typeof out.code !== 'string' || out.code.length === 0) throw new Error('terser returned no code');
  return out.code;
}

/** The style sheet `css`, minified without moving rules (their order decides the cascade). */
function minifyCss(css) {
  return csso.minify(css, { restructure: false, comments: false }).css;
}

/** `html` without comments and without the white space between tags, except inside scripts. */
function minifyHtml(html) {
  return html
    .split(/(<script\b[\s\S]*?<\/script>)/)
    .map((part, i) => (i % 2 ? part : part.replace(/<!--[\s\S]*?-->/g, '').replace(/>\s+</g, '><').trim()))
    .join('');
}

/** The Subresource Integrity value of `bytes`, as Trunk writes it (SHA-384). */
function integrity(bytes) {
  return `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
}

/** Minifies the ES module `file` in place. */
export async function minifyModuleFile(file) {
  writeFileSync(file, await minifyModule(readFileSync(file, 'utf8')));
}

/** Minifies, in the staging directory `dir`, every style sheet (updating its integrity in `html`),
 *  and returns `html` minified. */
export function minifyStyleAndPage(dir, html) {
  const files = readdirSync(dir);
  for (const f of files.filter((f) => f.endsWith('.css'))) {
    const before = readFileSync(join(dir, f));
    const after = Buffer.from(minifyCss(before.toString('utf8')));
    writeFileSync(join(dir, f), after);
    const link = html.match(new RegExp(`href="\\./${f.replace(/[.]/g, '\\.')}"[^>]*integrity="([^"]*)"`));
    if (link && link[1] !== integrity(before)) throw new Error(`${f}: its integrity in index.html is not the SHA-384 of the file`);
    if (link) html = html.replace(link[1], integrity(after));
  }
  return minifyHtml(html);
}
