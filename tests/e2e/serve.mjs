// A static server for dist/ as any plain host would serve it: files only, no rewrites, no headers
// beyond the content type (so the page's own meta Content-Security-Policy is what protects it).
// `prefix` serves the build under a sub-path such as /tools/bitbudget/; `extra` maps absolute paths
// outside dist (e.g. test host pages) to [content type, body]. `gzip` compresses text and wasm for
// a client that accepts it, as real hosts do, and `cache` lets the browser keep files for an hour
// (the time-to-usable benchmark needs both).
import { createServer } from 'node:http';
import { gzipSync } from 'node:zlib';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize } from 'node:path';

const types = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.json': 'application/json', '.safetensors': 'application/octet-stream', '.bin': 'application/octet-stream' };

export async function serveDist(dist, prefix = '/', extra = {}, { gzip = false, cache = false } = {}) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    if (extra[path]) {
      res.writeHead(200, { 'content-type': extra[path][0] });
      res.end(extra[path][1]);
      return;
    }
    if (!path.startsWith(prefix)) {
      res.writeHead(404);
      res.end('not found');
      return;
    }
    const rel = normalize(path.slice(prefix.length)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dist, rel === '.' || rel.endsWith('/') || rel === '' ? join(rel, 'index.html') : rel);
    try {
      const body = await readFile(file);
      const headers = { 'content-type': types[extname(file)] ?? 'application/octet-stream' };
      if (cache) headers['cache-control'] = 'public, max-age=3600';
      if (gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '') && /\.(html|js|css|wasm|json|svg)$/.test(file)) {
        res.writeHead(200, { ...headers, 'content-encoding': 'gzip' });
        res.end(gzipSync(body, { level: 9 }));
        return;
      }
      res.writeHead(200, headers);
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { server, origin, base: origin + prefix };
}

/// Chromium as the suite runs it: Debian's build, headless, nothing phoning home.
export function launchOptions() {
  return {
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless=new', '--no-first-run', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--disable-quic', '--disable-gpu'],
  };
}

/// Chromium as `launchOptions`, with WebGPU: SwiftShader's (a CPU emulation) where there is no GPU.
export function webgpuLaunchOptions() {
  const options = launchOptions();
  return {
    ...options,
    args: [...options.args.filter((a) => a !== '--disable-gpu'), '--enable-unsafe-webgpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
  };
}

/// Whether a console message is a problem of the page: errors and warnings, except Chromium's own
/// "No available adapters." when the Quantize lab asks for a WebGPU adapter on a machine without
/// one (the page says so itself and runs on the CPU), and canvas read-back hints.
export function consoleProblem(m) {
  const text = m.text();
  return (m.type() === 'error' || m.type() === 'warning')
    && !text.includes('willReadFrequently') && text !== 'No available adapters.';
}

/// The problems `page` reports from now on (console errors and warnings by `consoleProblem`, and
/// uncaught exceptions), collected into the returned array as they happen.
export function collectProblems(page) {
  const problems = [];
  page.on('console', (m) => { if (consoleProblem(m)) problems.push(`${m.type()}: ${m.text()}`); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  return problems;
}
