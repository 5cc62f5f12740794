import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { deflateSync, constants } from 'node:zlib';
import { encodePng } from '../src/render/png.js';
const name = process.argv[2] ?? 'docs-api-quick@1.5';
const p = PNG.sync.read(readFileSync(`/work/shared/reference/${name}.png`));
const rgba = new Uint8Array(p.data.buffer, p.data.byteOffset, p.data.length);
const W = p.width, H = p.height;
const t = (f: () => unknown, n = 15) => { const xs: number[] = []; let r; for (let i = 0; i < n; i++) { const a = performance.now(); r = f(); xs.push(performance.now() - a); } xs.sort((a, b) => a - b); return [xs[n >> 1]!.toFixed(1), r] as const; };
const [full, png] = t(() => encodePng(rgba, W, H, 6, { opaque: true }));
console.log(name, W, H, 'full encodePng ms', full, 'bytes', (png as Buffer).length);
// raw filtered bytes, from inflating our own png's IDAT
import { inflateSync } from 'node:zlib';
const buf = png as Buffer; const idatLen = buf.readUInt32BE(33); const idat = buf.subarray(41, 41 + idatLen);
const raw = inflateSync(idat);
for (const level of [1, 2, 3, 4, 5, 6]) for (const strategy of [constants.Z_DEFAULT_STRATEGY, constants.Z_RLE]) {
  const [ms, out] = t(() => deflateSync(raw, { level, memLevel: 9, strategy }));
  console.log(`deflate level ${level} strat ${strategy}: ${ms} ms, ${(out as Buffer).length} bytes`);
}
