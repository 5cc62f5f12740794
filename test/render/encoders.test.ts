// The pixel paths without the browser: PNG encoder (checked by pngjs), RGBA -> I420 (checked against ffmpeg's own
// conversion), the page's run-length format, and the video encoder's determinism (real ffmpeg + ffprobe).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { deflateSync, inflateSync } from 'node:zlib';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { encodePng, encodePngAsync, crc32 } from '../../src/render/png.js';
import { rgbaToI420 } from '../../src/render/rgba-to-i420.js';
import { VideoEncoder } from '../../src/render/ffmpeg/video.js';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { decodeRle } from '../../src/render/page/draw-script.js';
import { prng } from '../helpers/prng.js';

function pattern(w: number, h: number, alpha = 255): Uint8Array {
  const a = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      a[i] = (x * 5 + y) & 255;
      a[i + 1] = (y * 3) & 255;
      a[i + 2] = ((x ^ y) * 7) & 255;
      a[i + 3] = x < 3 ? alpha : 255;
    }
  return a;
}

test('crc32 matches the standard check value', () => {
  assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
});

test('encodePng round-trips through pngjs: RGB when opaque, RGBA otherwise; same input, same bytes', () => {
  for (const [w, h, alpha] of [
    [1, 1, 255],
    [17, 9, 255],
    [64, 33, 128],
    [300, 2, 0],
  ] as const) {
    const px = pattern(w, h, alpha);
    const png = encodePng(px, w, h);
    const back = PNG.sync.read(png);
    assert.deepEqual([back.width, back.height], [w, h]);
    assert.ok(Buffer.from(back.data).equals(Buffer.from(px)), `${w}x${h} pixels differ`);
    assert.equal(png[25], alpha === 255 ? 2 : 6, 'colour type');
    assert.ok(encodePng(px, w, h).equals(png));
  }
  assert.throws(() => encodePng(new Uint8Array(10), 2, 2), /expected 16 bytes/);
});

/** PNG's scanlines the plain way (pack to RGB/RGBA, then None for the first row and Up for the rest). */
function plainScanlines(px: Uint8Array, w: number, h: number): Buffer {
  const opaque = px.every((v, i) => (i & 3) !== 3 || v === 255);
  const bpp = opaque ? 3 : 4;
  const rows: number[][] = [];
  for (let y = 0; y < h; y++) {
    const row: number[] = [];
    for (let x = 0; x < w; x++) for (let c = 0; c < bpp; c++) row.push(px[(y * w + x) * 4 + c]!);
    rows.push(row);
  }
  const raw: number[] = [];
  rows.forEach((row, y) => raw.push(y ? 2 : 0, ...row.map((v, i) => (y ? (v - rows[y - 1]![i]!) & 255 : v))));
  return Buffer.from(raw);
}

/** A PNG's IDAT data (encodePng writes one IDAT chunk). */
function idatOf(png: Buffer): Buffer {
  assert.equal(png.toString('latin1', 37, 41), 'IDAT');
  return png.subarray(41, 41 + png.readUInt32BE(33));
}

test('encodePng filters four bytes at a time: the scanlines of packing then filtering byte by byte, equal rows and unaligned input too', () => {
  const next = prng(7);
  for (const [w, h, withAlpha] of [
    [1, 1, false],
    [17, 9, false],
    [64, 33, true],
    [301, 7, true],
  ] as const) {
    const px = new Uint8Array(w * h * 4).map((_, i) => ((i & 3) === 3 && !withAlpha ? 255 : Math.floor(next() * 256)));
    // bytes that would borrow from their neighbours in a plain 32-bit subtraction, then rows 2 and 3 repeating row 1
    // (the memcmp shortcut)
    if (h > 1) {
      px.set([0, 255, 0, 255], 0);
      px.set([1, 0, 255, 255], w * 4);
    }
    for (let y = 2; y < Math.min(h, 4); y++) px.copyWithin(y * w * 4, w * 4, 2 * w * 4);
    const unaligned = Buffer.alloc(px.length + 1)
      .fill(0)
      .subarray(1);
    unaligned.set(px);
    for (const input of [px, unaligned]) {
      // inflating checks the stream's Adler-32 too
      const idat = idatOf(encodePng(input, w, h));
      assert.ok(inflateSync(idat).equals(plainScanlines(px, w, h)), `${w}x${h}: scanlines differ`);
      // a picture this small is one piece: the bytes of zlib's one-shot deflate, as before the stream had pieces
      assert.ok(idat.equals(deflateSync(plainScanlines(px, w, h), { level: 6, memLevel: 9 })), `${w}x${h}: one stream`);
    }
  }
});

/**
 * A tall picture with what the stream's pieces are cut by: a band of rows drawn over and over (the Up filter makes
 * them zeros), then more than a piece's worth (1 MiB) of noise, then zeros again with one odd row among them.
 */
function banded(w: number, h: number): Uint8Array {
  const next = prng(3);
  const px = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      const noisy = y >= 40 && y < 440;
      px[i] = noisy ? Math.floor(next() * 256) : 30;
      px[i + 1] = noisy ? Math.floor(next() * 256) : x & 255;
      px[i + 2] = y === 600 ? 99 : 200;
      px[i + 3] = 255;
    }
  return px;
}

test('encodePng in pieces (runs of zero rows alone, the rest at most 1 MiB each): one valid zlib stream, async the same bytes, no larger than one stream', async () => {
  const [w, h] = [1000, 800];
  const px = banded(w, h);
  const png = encodePng(px, w, h);
  const back = PNG.sync.read(png);
  assert.ok(Buffer.from(back.data).equals(Buffer.from(px)), 'pixels differ');
  const scanlines = inflateSync(idatOf(png));
  assert.ok(scanlines.equals(plainScanlines(px, w, h)), 'scanlines differ');
  assert.equal(idatOf(png).subarray(0, 2).toString('hex'), '789c', 'the header zlib writes at level 6');
  // a piece ends with a sync flush: an empty stored block, 00 00 ff ff, on a byte boundary (one per cut at least)
  const cuts = idatOf(png).toString('hex').split('0000ffff').length - 1;
  assert.ok(cuts >= 3, `${cuts} cuts`);
  const whole = deflateSync(scanlines, { level: 6, memLevel: 9 });
  assert.ok(
    idatOf(png).length <= whole.length * 1.01,
    `${idatOf(png).length} bytes against ${whole.length} in one stream`,
  );
  assert.ok((await encodePngAsync(px, w, h)).equals(png), 'encodePngAsync gave other bytes');
  assert.ok(encodePng(px, w, h).equals(png), 'not the same bytes twice');
});

test('encodePng on pictures of random bands (rows repeating the one above, or new): valid streams, async the same bytes', async () => {
  const next = prng(5);
  for (let k = 0; k < 20; k++) {
    const w = 1 + Math.floor(next() * 400);
    const h = 1 + Math.floor(next() * 600);
    const px = new Uint8Array(w * h * 4);
    for (let y = 0; y < h;) {
      const len = 1 + Math.floor(next() * (next() < 0.5 ? 5 : 300));
      const repeat = next() < 0.7;
      for (let r = 0; r < len && y < h; r++, y++) {
        if (repeat && y > 0) px.copyWithin(y * w * 4, (y - 1) * w * 4, y * w * 4);
        else for (let i = y * w * 4; i < (y + 1) * w * 4; i++) px[i] = (i & 3) === 3 ? 255 : Math.floor(next() * 256);
      }
    }
    const png = encodePng(px, w, h);
    assert.ok(inflateSync(idatOf(png)).equals(plainScanlines(px, w, h)), `${w}x${h}: scanlines differ`);
    assert.ok((await encodePngAsync(px, w, h)).equals(png), `${w}x${h}: encodePngAsync gave other bytes`);
  }
});

test('encodePng of a read back (rows bottom first, alpha bytes of no meaning, opaque): the bytes of the upright opaque picture', () => {
  const next = prng(11);
  for (const [w, h] of [
    [1, 1],
    [5, 4],
    [97, 31],
  ] as const) {
    const upright = new Uint8Array(w * h * 4).map((_, i) => ((i & 3) === 3 ? 255 : Math.floor(next() * 4) * 60));
    const read = new Uint8Array(upright.length);
    for (let y = 0; y < h; y++) read.set(upright.subarray(y * w * 4, (y + 1) * w * 4), (h - 1 - y) * w * 4);
    for (let i = 3; i < read.length; i += 4) read[i] = Math.floor(next() * 256);
    const png = encodePng(read, w, h, 6, { bottomUp: true, opaque: true });
    assert.ok(png.equals(encodePng(upright, w, h)), `${w}x${h}`);
    assert.equal(png[25], 2, 'colour type RGB');
  }
});

test('rgbaToI420 gives exactly what ffmpeg gives (bt709, limited range) on flat 2x2 blocks', () => {
  const colours = [
    [255, 255, 255],
    [0, 0, 0],
    [255, 0x33, 0x99],
    [255, 0, 0],
    [0, 255, 0],
    [0, 0, 255],
    [17, 200, 99],
    [128, 128, 128],
  ];
  const w = colours.length * 2;
  const h = 2;
  const rgba = new Uint8Array(w * h * 4);
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) rgba.set([...colours[x >> 1], 255], (y * w + x) * 4);
  const ours = rgbaToI420(rgba, w, h);
  const ff = spawnSync(
    'ffmpeg',
    [
      '-v',
      'error',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgba',
      '-s',
      `${w}x${h}`,
      '-i',
      'pipe:0',
      '-vf',
      'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p',
      '-f',
      'rawvideo',
      'pipe:1',
    ],
    { input: Buffer.from(rgba) },
  );
  assert.equal(ff.status, 0, String(ff.stderr));
  assert.ok(ours.equals(ff.stdout), `ours ${[...ours]} ffmpeg ${[...ff.stdout]}`);
  assert.throws(() => rgbaToI420(new Uint8Array(12), 3, 1), /even/);
});

test("decodeRle reads the page format: runs and literals; a picture of 4n + 2 bytes drops the last word's padding", () => {
  const words = new Uint32Array([0x80000000 + 3, 0x11223344, 2, 1, 2, 0x80000000 + 1, 9]);
  const out = decodeRle(new Uint8Array(words.buffer), 24);
  assert.deepEqual([...new Uint32Array(out.buffer, out.byteOffset, 6)], [0x11223344, 0x11223344, 0x11223344, 1, 2, 9]);
  const odd = decodeRle(new Uint8Array(words.buffer), 22); // an I420 picture whose size is not a whole number of words
  assert.equal(odd.length, 22);
  assert.deepEqual([...odd.subarray(16)], [...out.subarray(16, 22)]);
  assert.throws(() => decodeRle(new Uint8Array(words.buffer), 28), /expected 7/);
});

test('VideoEncoder: h264 yuv420p with the planned frame count; the same frames give the same bytes', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cmrender-enc-'));
  try {
    const w = 64;
    const h = 48;
    const hashes: Buffer[] = [];
    for (const name of ['a.mp4', 'b.mp4']) {
      const enc = new VideoEncoder({ width: w, height: h, fps: 10, outPath: join(dir, name) });
      for (let i = 0; i < 12; i++) {
        const px = pattern(w, h);
        px.fill(i * 20, 0, 64);
        await enc.write(rgbaToI420(px, w, h));
      }
      await enc.finish();
      hashes.push(readFileSync(join(dir, name)));
    }
    assert.ok(hashes[0].equals(hashes[1]));
    const p = await probe(join(dir, 'a.mp4'));
    assert.deepEqual([p.codec, p.pixFmt, p.width, p.height, p.frames, p.duration], ['h264', 'yuv420p', w, h, 12, 1.2]);
    const bad = new VideoEncoder({ width: w, height: h, fps: 10, outPath: join(dir, 'c.mp4') });
    await assert.rejects(bad.write(new Uint8Array(5)), /expected 4608/);
    bad.kill();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
