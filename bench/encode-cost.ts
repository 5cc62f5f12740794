// Encode-cost benchmark (issue 32 rows 5 and 9): what one video encoder costs in time and in bytes by codec, quality
// and content. The same encoder arguments as a render (encoderArgs), fed raw frames on stdin, so only the encoder
// is measured: a flat picture (one colour, a small square moving), a detailed one that stands still (one noise image,
// the hostile asset), and a detailed one that moves (the noise shifted a row a frame). Prints ns and bytes per
// pixel-frame and the time against x264 at the default quality on the flat picture, the estimate's unit. Time is the
// encoder's CPU time (user + system, from /usr/bin/time): on a shared, loaded machine wall time says more about the
// neighbours than about the encoder, and the ratios between codecs are what the estimate takes.
// Run: npx tsx bench/encode-cost.ts [--width 640] [--height 360] [--frames 60] [--codecs h265,prores]
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encoderArgs } from '../src/render/ffmpeg/video.js';
import { crfOf, proresProfileOf, type VideoCodec } from '../src/contract/outputs.js';
import { prng } from '../test/helpers/prng.js';

const arg = (name: string, dflt: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const W = arg('width', 640);
const H = arg('height', 360);
const FRAMES = arg('frames', 60);
const FPS = 30;
type Content = 'flat' | 'noise-still' | 'noise-moving';

/** One frame of the content, I420 (or RGBA for a transparent encode). */
function framer(content: Content, rgba: boolean): (i: number) => Buffer {
  const bytes = rgba ? W * H * 4 : (W * H * 3) / 2;
  const rand = prng(7);
  const noise = Buffer.alloc(bytes + W * 4 * FRAMES);
  for (let i = 0; i < noise.length; i++) noise[i] = Math.floor(rand() * 256);
  if (rgba) for (let i = 3; i < noise.length; i += 4) noise[i] = 255;
  return (i) => {
    if (content === 'noise-still') return noise.subarray(0, bytes);
    if (content === 'noise-moving') return noise.subarray(i * W * (rgba ? 4 : 1), i * W * (rgba ? 4 : 1) + bytes);
    const f = Buffer.alloc(bytes, rgba ? 0 : 90);
    if (rgba) for (let p = 0; p < W * H; p++) f.writeUInt32BE(0x3366ccff, p * 4);
    else f.fill(128, W * H);
    const x0 = (i * 4) % (W - 32);
    for (let y = 40; y < 72; y++)
      for (let x = x0; x < x0 + 32; x++)
        if (rgba) f.writeUInt32BE(0xffcc33ff, (y * W + x) * 4);
        else f[y * W + x] = 220;
    return f;
  };
}

async function encode(codec: VideoCodec, quality: number, transparent: boolean, content: Content) {
  const dir = mkdtempSync(join(tmpdir(), 'cmr-enc-'));
  const ext = codec === 'prores' ? 'mov' : codec === 'vp9' || codec === 'av1' ? 'webm' : 'mp4';
  const outPath = join(dir, `out.${ext}`);
  const frame = framer(content, transparent);
  const args = encoderArgs({ width: W, height: H, fps: FPS, outPath, codec, quality, transparent });
  const cpuFile = join(dir, 'cpu');
  const t0 = performance.now();
  const child = spawn('/usr/bin/time', ['-f', '%U %S', '-o', cpuFile, 'ffmpeg', ...args], {
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const done = new Promise<number>((r) => child.on('close', (code) => r(code ?? -1)));
  for (let i = 0; i < FRAMES; i++)
    if (!child.stdin.write(frame(i))) await new Promise((r) => child.stdin.once('drain', r));
  child.stdin.end();
  const code = await done;
  const ms = performance.now() - t0;
  const bytes = code === 0 ? statSync(outPath).size : NaN;
  const [user, sys] = readFileSync(cpuFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
  const cpuMs = (user! + sys!) * 1000;
  rmSync(dir, { recursive: true, force: true });
  const pf = W * H * FRAMES;
  return { nsPerPixel: (cpuMs * 1e6) / pf, bytesPerPixel: bytes / pf, ms, cpuMs, bytes };
}

const CASES: { codec: VideoCodec; quality: number; transparent?: boolean }[] = [
  { codec: 'h264', quality: 65 },
  { codec: 'h264', quality: 85 },
  { codec: 'h264', quality: 100 },
  { codec: 'h265', quality: 65 },
  { codec: 'h265', quality: 85 },
  { codec: 'h265', quality: 100 },
  { codec: 'vp9', quality: 65 },
  { codec: 'vp9', quality: 100 },
  { codec: 'av1', quality: 65 },
  { codec: 'av1', quality: 100 },
  { codec: 'prores', quality: 65 },
  { codec: 'prores', quality: 65, transparent: true },
];
const CONTENTS: Content[] = ['flat', 'noise-still', 'noise-moving'];
const only = process.argv.includes('--codecs') ? process.argv[process.argv.indexOf('--codecs') + 1]!.split(',') : null;

const scale = (c: (typeof CASES)[number]) =>
  c.codec === 'prores'
    ? `profile ${proresProfileOf(c.quality, c.transparent)}${c.transparent ? ' (4444)' : ''}`
    : `crf ${crfOf(c.codec, c.quality)}`;
console.log(
  `${W}x${H}, ${FPS} fps, ${FRAMES} frames a case; CPU ns and bytes per pixel-frame; "x" = CPU / x264 q65 flat`,
);
console.log(
  'codec   quality  scale              content        ns/px   bytes/px      x    cpu ms   wall ms       bytes',
);
let base = 0;
for (const c of CASES.filter((c) => !only || only.includes(c.codec)))
  for (const content of CONTENTS) {
    const r = await encode(c.codec, c.quality, c.transparent === true, content);
    if (!base) base = r.nsPerPixel;
    console.log(
      `${c.codec.padEnd(7)} ${String(c.quality).padStart(7)}  ${scale(c).padEnd(17)}  ${content.padEnd(13)} ${r.nsPerPixel.toFixed(1).padStart(6)}  ${r.bytesPerPixel.toFixed(4).padStart(9)}  ${(r.nsPerPixel / base).toFixed(1).padStart(5)}  ${r.cpuMs.toFixed(0).padStart(8)}  ${r.ms.toFixed(0).padStart(8)}  ${String(r.bytes).padStart(10)}`,
    );
  }
