// npx tsx bench/png-encode.ts: what src/render/png.ts's encoder costs in time and bytes on real frames (issue 54),
// against its scanlines deflated as one zlib stream at level 6 (how every PNG was written before its stream was cut in
// pieces, and the form the golden hashes still take: test/helpers/golden.ts). Each frame is encoded the way the
// service encodes a frame job's picture: rows bottom first as the page reads them, opaque, encodePngAsync. Prints per
// frame the median of BENCH_REPEAT encodes each way, in turn, and the totals with their ratios.
//
// Frames: the reference frames in ../shared/reference (1920x1080 and others), or the PNG files named:
//   npx tsx bench/png-encode.ts a.png b.png ...
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync, inflateSync } from 'node:zlib';
import { PNG } from 'pngjs';
import { encodePngAsync } from '../src/render/png.js';
import { hasCorpus, referenceDir } from '../test/helpers/shared.js';

const REPEAT = Number(process.env.BENCH_REPEAT ?? 9);
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : hasCorpus
    ? readdirSync(referenceDir)
        .filter((f) => f.endsWith('.png'))
        .map((f) => join(referenceDir, f))
    : [];
if (!files.length) {
  console.error('no frames: run with ../shared beside the project, or name PNG files');
  process.exit(2);
}

const median = (xs: number[]) => xs.sort((a, b) => a - b)[xs.length >> 1]!;

/** The IDAT data of one of our PNGs (one IDAT chunk after the 13-byte IHDR). */
const idatOf = (png: Buffer) => png.subarray(41, 41 + png.readUInt32BE(33));

let totalPieces = 0;
let totalOne = 0;
let bytesPieces = 0;
let bytesOne = 0;
console.log('| frame | size | pieces: ms | one stream: ms | ×time | pieces: bytes | one stream: bytes | ×bytes |');
console.log('|---|---|---|---|---|---|---|---|');
for (const file of files) {
  const image = PNG.sync.read(readFileSync(file));
  const { width: w, height: h } = image;
  // as the page reads it: bottom row first
  const read = new Uint8Array(image.data.length);
  for (let y = 0; y < h; y++) read.set(image.data.subarray(y * w * 4, (y + 1) * w * 4), (h - 1 - y) * w * 4);
  const input = { bottomUp: true, opaque: true };
  const png = await encodePngAsync(read, w, h, 6, input);
  const scanlines = inflateSync(idatOf(png));
  const one = deflateSync(scanlines, { level: 6, memLevel: 9 });
  const tPieces: number[] = [];
  const tOne: number[] = [];
  for (let i = 0; i < REPEAT; i++) {
    let t = performance.now();
    await encodePngAsync(read, w, h, 6, input);
    tPieces.push(performance.now() - t);
    // the same filter pass, then one stream: what the encoder did before. The filter pass is timed as an encode at
    // level 0 (its pieces stored, not compressed: a copy, about 2 ms of a 1080p frame, so this side is that much slow)
    t = performance.now();
    await encodePngAsync(read, w, h, 0, input);
    deflateSync(scanlines, { level: 6, memLevel: 9 });
    tOne.push(performance.now() - t);
  }
  const [p, o] = [median(tPieces), median(tOne)];
  totalPieces += p;
  totalOne += o;
  bytesPieces += png.length;
  bytesOne += one.length + (png.length - idatOf(png).length);
  console.log(
    `| ${file.split('/').pop()} | ${w}x${h} | ${p.toFixed(1)} | ${o.toFixed(1)} | ×${(p / o).toFixed(2)} | ${png.length} | ${one.length + png.length - idatOf(png).length} | ×${(png.length / (one.length + png.length - idatOf(png).length)).toFixed(3)} |`,
  );
}
console.log(
  `| all ${files.length} | | ${totalPieces.toFixed(0)} | ${totalOne.toFixed(0)} | ×${(totalPieces / totalOne).toFixed(2)} | ${bytesPieces} | ${bytesOne} | ×${(bytesPieces / bytesOne).toFixed(3)} |`,
);
