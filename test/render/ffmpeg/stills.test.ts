// Issue 27's stills and GIF params through real Chromium and ffmpeg: JPEG and WebP frames (their codec, close to the
// PNG of the same time, the same bytes twice), transparent PNG and WebP (alpha 0 in empty corners, 255 on the
// shape; opaque with a background), and a GIF's loop count and palette size.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { realRenderer } from '../../helpers/app.js';
import { SPIN, decodeFrames, psnr } from '../../helpers/video.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';
import type { RenderJob } from '../../../src/render/renderer-port.js';
import type { ChromiumRenderer } from '../../../src/render/chromium-renderer.js';

let renderer: ChromiumRenderer;
let dir: string;
before(async () => {
  renderer = realRenderer();
  await renderer.start();
  dir = await mkdtemp(join(tmpdir(), 'cmr-stills-'));
});
after(async () => {
  await renderer.close();
  await rm(dir, { recursive: true, force: true });
});

const W = 320;
const H = 180;
/** A square off centre, with or without a background layer (the design frame's rect). */
const square = (background: boolean) => `runner "0.0.3";
use std.shapes.*;
scene sq() -> Frame {
  compose [${background ? 'rect(width: 1920px, height: 1080px, fill: #203850), ' : ''}rect(width: 400px, height: 400px, fill: #f0c020).translate(x: -600px)]
}
`;

let seq = 0;
async function render(kind: RenderJob['kind'], source: string, params: RenderJob['params'], ext: string) {
  const outPath = join(dir, `out-${seq++}.${ext}`);
  await renderer.render(
    { id: `s${seq}`, kind, source, params, assets: {}, outPath },
    { signal: new AbortController().signal },
  );
  return outPath;
}

/** RGBA of a still, decoded by ffmpeg. */
function rgbaOf(path: string): Buffer {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'], {
    maxBuffer: 1 << 28,
  });
  assert.equal(r.status, 0, String(r.stderr));
  assert.equal(r.stdout.length, W * H * 4);
  return r.stdout;
}
const alpha = (rgba: Buffer, x: number, y: number) => rgba[(y * W + x) * 4 + 3];
const CORNERS = [
  [1, 1],
  [W - 2, 1],
  [1, H - 2],
  [W - 2, H - 2],
] as const;

for (const [format, ext, codec, minDb] of [
  ['jpeg', 'jpg', 'mjpeg', 40],
  ['webp', 'webp', 'webp', 40],
] as const) {
  test(`${format} frame: ${codec}, within ${minDb} dB of the PNG at the same time, same bytes twice; quality changes the size`, async (t) => {
    const params = { at: 0.5, width: W, height: H };
    const png = PNG.sync.read(await readFile(await render('frame', SPIN, params, 'png')));
    const a = await render('frame', SPIN, { ...params, format }, ext);
    const b = await render('frame', SPIN, { ...params, format }, ext);
    assert.ok((await readFile(a)).equals(await readFile(b)), 'same request, same bytes');
    const p = await probe(a);
    assert.equal(p.codec, codec);
    assert.deepEqual([p.width, p.height], [W, H]);
    const [rgb] = decodeFrames(a, W, H);
    const db = psnr(rgb!, png);
    t.diagnostic(`${format} at quality 90: ${db.toFixed(1)} dB`);
    assert.ok(db >= minDb, `${format}: ${db.toFixed(1)} dB`);
    const low = await render('frame', SPIN, { ...params, format, quality: 10 }, ext);
    assert.ok((await readFile(low)).length < (await readFile(a)).length, 'quality 10 is smaller than the default 90');
  });
}

for (const [format, ext] of [
  ['png', 'png'],
  ['webp', 'webp'],
] as const) {
  test(`${format} transparent: alpha 0 in the empty corners, 255 on the square; with a background opaque`, async () => {
    const clear = rgbaOf(await render('frame', square(false), { width: W, height: H, format, transparent: true }, ext));
    for (const [x, y] of CORNERS) assert.equal(alpha(clear, x, y), 0, `corner ${x},${y}`);
    // the 400 px square (of 1920) at x -600 px: around 320 x (360 / 1920) = 60 px, mid-height
    assert.equal(alpha(clear, 60, H / 2), 255);
    const opaque = rgbaOf(await render('frame', square(true), { width: W, height: H, format, transparent: true }, ext));
    for (let i = 3; i < opaque.length; i += 4) assert.equal(opaque[i], 255);
  });
}

test("a frame without transparent stays opaque where no background is drawn (today's PNG)", async () => {
  const rgba = rgbaOf(await render('frame', square(false), { width: W, height: H }, 'png'));
  for (const [x, y] of CORNERS) assert.equal(alpha(rgba, x, y), 255);
});

/** The NETSCAPE2.0 loop count, or null without the extension (played once). */
function loopCount(gif: Buffer): number | null {
  const at = gif.indexOf(Buffer.from([0x21, 0xff, 0x0b, ...Buffer.from('NETSCAPE2.0', 'latin1')]));
  return at < 0 ? null : gif.readUInt16LE(at + 16);
}

test('GIF loop: 0 for ever (count 0), 1 played once (no extension), 3 played three times (count 2)', async () => {
  const params = { fps: 5, duration: 0.4, width: 96, height: 54 };
  const counts = [];
  for (const loop of [0, 1, 3])
    counts.push(loopCount(await readFile(await render('gif', SPIN, { ...params, loop }, 'gif'))));
  assert.deepEqual(counts, [0, null, 2]);
});

test('GIF colors: a palette of 4 leaves at most 4 colours in every decoded frame', async () => {
  const gif = await render('gif', SPIN, { fps: 5, duration: 0.4, width: 96, height: 54, colors: 4 }, 'gif');
  for (const f of decodeFrames(gif, 96, 54)) {
    const seen = new Set<number>();
    for (let i = 0; i < f.length; i += 3) seen.add((f[i]! << 16) | (f[i + 1]! << 8) | f[i + 2]!);
    assert.ok(seen.size <= 4, `${seen.size} colours`);
  }
});
