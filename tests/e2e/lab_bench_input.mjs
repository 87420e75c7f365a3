// The Quantize lab benchmark's inputs, shared by dist_check.mjs and lab_upload_ab.mjs.
import { writeFileSync } from 'node:fs';

// The 14 schemes the lab had when its 5 s target was set for a 42M-value upload (the
// llama.cpp blocks, MXFP4, NF4 and the integers, FP8 and the casts), as a URL parameter.
export const FOURTEEN_SCHEMES = '&schemes=ggml,mxfp4,int,float';

// The benchmark tensor: `n` values of N(0, 0.02²) from a fixed seed (Box-Muller on a linear
// congruential generator), written to `file` as a little-endian f32 .npy.

export function writeBigNpy(file, n) {
  let dict = `{'descr': '<f4', 'fortran_order': False, 'shape': (${n},), }`;
  dict += ' '.repeat(64 - ((10 + dict.length + 1) % 64)) + '\n';
  const head = Buffer.alloc(10);
  head.write('\x93NUMPY', 0, 'latin1');
  head[6] = 1;
  head.writeUInt16LE(dict.length, 8);
  const values = new Float32Array(n);
  let seed = 12345;
  const uniform = () => ((seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) + 0.5) / 4294967296;
  for (let i = 0; i < n; i += 2) {
    const r = 0.02 * Math.sqrt(-2 * Math.log(uniform()));
    const t = 2 * Math.PI * uniform();
    values[i] = r * Math.cos(t);
    if (i + 1 < n) values[i + 1] = r * Math.sin(t);
  }
  writeFileSync(file, Buffer.concat([head, Buffer.from(dict, 'latin1'), Buffer.from(values.buffer)]));
}
