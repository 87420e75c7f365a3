// Run by page_bundles.mjs (a Trunk post_build hook) once the boot script is final: that inline
// <script type="module"> (it imports a page's wasm-bindgen JS and starts its wasm) is what a
// Content-Security-Policy without 'unsafe-inline' blocks. This adds the SHA-256 of each inline script of the staged index.html to the policy's
// script-src, after 'wasm-unsafe-eval', so that exactly those scripts run and nothing injected does.
// No dependency: node's crypto only. Fails the build when the policy or the loader is missing.
import { readFileSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';

const dir = process.env.TRUNK_STAGING_DIR;
if (!dir) throw new Error('csp_hashes.mjs runs as a Trunk hook (TRUNK_STAGING_DIR is not set)');
const file = join(dir, 'index.html');
const html = readFileSync(file, 'utf8');
const inline = [...html.matchAll(/<script(?![^>]*\ssrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
if (inline.length === 0) throw new Error(`no inline loader script in ${file}`);
const hashes = inline.map((s) => `'sha256-${createHash('sha256').update(s, 'utf8').digest('base64')}'`);
const policy = /(<meta http-equiv="Content-Security-Policy" content="[^"]*script-src [^";]*'wasm-unsafe-eval')/;
if (!policy.test(html)) throw new Error(`no Content-Security-Policy meta tag whose script-src has 'wasm-unsafe-eval' in ${file}`);
writeFileSync(file, html.replace(policy, `$1 ${hashes.join(' ')}`));
console.log(`csp_hashes: script-src allows ${hashes.length} inline loader script(s)`);
