// Issue 27's video outputs through real Chromium and ffmpeg: each codec's ffprobe facts, its decoded frames against
// the PNG frame of the same time, the same bytes twice, transparent VP9 and ProRes, a range of the scene, and chunked
// videos of every codec joined without re-encoding (the same bytes as chunks rendered one by one, as workers do).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { realRenderer } from '../../helpers/app.js';
import { SPIN, decodeFrames, psnr } from '../../helpers/video.js';
import { joinSegments, segmentJoiner } from '../../../src/render/ffmpeg/join.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';
import { chunkRanges } from '../../../src/contract/chunks.js';
import { VIDEO_CODECS, crfOf, proresProfileOf, videoExt, type VideoCodec } from '../../../src/contract/outputs.js';
import { chunkSegmentPath, type RenderJob } from '../../../src/render/renderer-port.js';
import { ChunkedVideos } from '../../../src/render/chunked-video.js';

// long videos cut in chunks and joined above the renderer, as a runner or a queued job's items do
let renderer: ChunkedVideos;
let dir: string;
before(async () => {
  renderer = new ChunkedVideos(realRenderer(), segmentJoiner(process.env.FFMPEG_PATH ?? 'ffmpeg'));
  await renderer.start();
  dir = await mkdtemp(join(tmpdir(), 'cmr-codecs-'));
});
after(async () => {
  await renderer.close();
  await rm(dir, { recursive: true, force: true });
});

const W = 320;
const H = 180;
const FPS = 10;

/** A square sliding over a background for `secs` seconds (every frame differs). */
const sliding = (secs: number, background: boolean) => `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene slide(duration: Duration = ${secs}s) -> Frame {
  let x = animate { 0s => -600px, ${secs}s => 600px };
  compose [${background ? 'rect(width: 1920px, height: 1080px, fill: #203850), ' : ''}rect(width: 400px, height: 400px, fill: #f0c020).translate(x: x)]
}
`;

let seq = 0;
function job(kind: RenderJob['kind'], source: string, params: RenderJob['params'], ext: string): RenderJob {
  const id = `job${seq++}`;
  return { id, kind, source, params, assets: {}, outPath: join(dir, `${id}.${ext}`) };
}
const hooks = () => ({ signal: new AbortController().signal });

async function video(source: string, params: RenderJob['params']): Promise<string> {
  const j = job('video', source, params, videoExt(params.codec));
  await renderer.render(j, hooks());
  return j.outPath;
}

async function pngAt(source: string, at: number): Promise<PNG> {
  const j = job('frame', source, { at, width: W, height: H }, 'png');
  await renderer.render(j, hooks());
  return PNG.sync.read(await readFile(j.outPath));
}

/** RGBA frames decoded by ffmpeg; VP9's alpha is a side stream only libvpx's own decoder reads. */
function decodeRgba(path: string, codec: VideoCodec): Buffer[] {
  const dec = codec === 'vp9' ? ['-c:v', 'libvpx-vp9'] : [];
  const r = spawnSync('ffmpeg', ['-v', 'error', ...dec, '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgba', 'pipe:1'], {
    maxBuffer: 1 << 30,
  });
  assert.equal(r.status, 0, String(r.stderr));
  const size = W * H * 4;
  const out: Buffer[] = [];
  for (let o = 0; o + size <= r.stdout.length; o += size) out.push(r.stdout.subarray(o, o + size));
  return out;
}

const EXPECT: Record<VideoCodec, { codec: string; pixFmt: string }> = {
  h264: { codec: 'h264', pixFmt: 'yuv420p' },
  h265: { codec: 'hevc', pixFmt: 'yuv420p' },
  vp9: { codec: 'vp9', pixFmt: 'yuv420p' },
  av1: { codec: 'av1', pixFmt: 'yuv420p' },
  prores: { codec: 'prores', pixFmt: 'yuv422p10le' },
};

test("quality table: the default is x264 CRF 18 exactly; 0 and 100 are each scale's ends; ProRes profiles", () => {
  assert.equal(crfOf('h264'), 18);
  assert.equal(crfOf('h264', 100), 0);
  assert.equal(crfOf('h264', 0), 51);
  assert.equal(crfOf('vp9', 0), 63);
  assert.equal(crfOf('av1', 100), 0);
  assert.deepEqual(
    [0, 19, 20, 39, 40, 59, 60, 100].map((q) => proresProfileOf(q)),
    [0, 0, 1, 1, 2, 2, 3, 3],
  );
  assert.equal(proresProfileOf(0, true), 4);
});

// lit 3D with soft edges (as the MP4 tests use for PSNR): a flat square's saturated edges lose to 4:2:0 chroma
// whatever the encoder (about 35 dB with a lossless one)
const SCENE = SPIN;
const pngs: PNG[] = [];

for (const codec of VIDEO_CODECS) {
  test(`${codec}: ffprobe facts, every frame >= 40 dB against the PNG of its time, same bytes twice`, async () => {
    if (pngs.length === 0) for (let i = 0; i < FPS; i++) pngs.push(await pngAt(SCENE, i / FPS));
    // high quality for the CRF codecs; ProRes HQ (its profile from 60)
    const params = { codec, quality: 90, fps: FPS, width: W, height: H };
    const a = await video(SCENE, params);
    const b = await video(SCENE, params);
    assert.ok(a.endsWith(`.${videoExt(codec)}`));
    const p = await probe(a);
    assert.equal(p.codec, EXPECT[codec].codec);
    assert.equal(p.pixFmt, EXPECT[codec].pixFmt);
    assert.equal(p.width, W);
    assert.equal(p.height, H);
    assert.equal(p.frames, FPS);
    assert.ok(Math.abs(p.duration - 1) < 0.02, `duration ${p.duration}`);
    const frames = decodeFrames(a, W, H);
    assert.equal(frames.length, FPS);
    frames.forEach((f, i) => {
      const db = psnr(f, pngs[i]!);
      assert.ok(db >= 40, `${codec} frame ${i}: ${db.toFixed(1)} dB`);
    });
    assert.ok((await readFile(a)).equals(await readFile(b)), `${codec}: two renders gave different bytes`);
  });
}

test('the default request (no codec, no quality) gives the same bytes as codec h264 at quality 65', async () => {
  const a = await video(SCENE, { fps: FPS, width: W, height: H });
  const b = await video(SCENE, { fps: FPS, width: W, height: H, codec: 'h264', quality: 65 });
  assert.ok((await readFile(a)).equals(await readFile(b)));
});

for (const codec of ['vp9', 'prores'] as const) {
  test(`${codec} transparent: alpha 0 in empty corners, 255 on the shape; with a background opaque everywhere`, async () => {
    const params = { codec, transparent: true, fps: FPS, width: W, height: H, duration: 0.5 };
    const clear = await video(sliding(1, false), params);
    const p = await probe(clear);
    // ffprobe names VP9's base layer (the alpha is a side stream); ProRes 4444 decodes as 12-bit
    assert.equal(p.pixFmt, codec === 'vp9' ? 'yuv420p' : 'yuva444p12le');
    const frames = decodeRgba(clear, codec);
    assert.equal(frames.length, 5);
    const alpha = (f: Buffer, x: number, y: number) => f[(y * W + x) * 4 + 3];
    for (const [i, f] of frames.entries()) {
      for (const [x, y] of [
        [1, 1],
        [W - 2, 1],
        [1, H - 2],
        [W - 2, H - 2],
      ])
        assert.equal(alpha(f, x!, y!), 0, `frame ${i} corner ${x},${y}`);
    }
    // frame 0: the 400 px square (of 1920) sits at x -600 px, i.e. around 160 - 100 = 60 px of 320, mid-height
    assert.equal(alpha(frames[0]!, 60, H / 2), 255);
    const opaque = decodeRgba(await video(sliding(1, true), params), codec);
    for (const f of opaque) for (let i = 3; i < f.length; i += 4) assert.equal(f[i], 255);
  });
}

test('range from 1 to 2 of a 3 s scene: frames 30..59 of the whole video, decoded (lossless H.264)', async () => {
  const scene = sliding(3, true);
  const common = { fps: 30, width: 160, height: 90, quality: 100 };
  const whole = decodeFrames(await video(scene, common), 160, 90);
  assert.equal(whole.length, 90);
  const rangePath = await video(scene, { ...common, from: 1, to: 2 });
  const p = await probe(rangePath);
  assert.equal(p.frames, 30);
  assert.ok(Math.abs(p.duration - 1) < 0.02, `duration ${p.duration}`);
  const part = decodeFrames(rangePath, 160, 90);
  assert.equal(part.length, 30);
  part.forEach((f, k) => assert.ok(f.equals(whole[30 + k]!), `range frame ${k} != whole frame ${30 + k}`));
});

test('a range over one chunk long (0.5 to 7 s at 10 fps: 65 frames in two chunks) is frames 5..69 of the whole', async () => {
  const scene = sliding(7, true);
  const common = { fps: 10, width: 160, height: 90, quality: 100 };
  const whole = decodeFrames(await video(scene, common), 160, 90);
  assert.equal(whole.length, 70);
  const part = decodeFrames(await video(scene, { ...common, from: 0.5, to: 7 }), 160, 90);
  assert.equal(part.length, 65);
  part.forEach((f, k) => assert.ok(f.equals(whole[5 + k]!), `range frame ${k} != whole frame ${5 + k}`));
});

test('a range past the clip fails the job with a clear reason', async () => {
  await assert.rejects(
    video(sliding(1, true), { fps: FPS, width: W, height: H, from: 0.5, to: 2 }),
    /past the end of the clip \(1 s\)/,
  );
});

for (const codec of VIDEO_CODECS.filter((c) => c !== 'h264')) {
  test(`${codec} in chunks: 70 frames in two segments joined; the same bytes as chunks rendered apart and joined`, async () => {
    const scene = sliding(7, true);
    const params = { codec, fps: FPS, width: 160, height: 90 };
    const whole = await video(scene, params);
    const p = await probe(whole);
    assert.equal(p.codec, EXPECT[codec].codec);
    assert.equal(p.frames, 70);
    assert.ok(Math.abs(p.duration - 7) < 0.05, `duration ${p.duration}`);
    // as render workers do: each chunk its own job, then one join
    const out = join(dir, `apart-${codec}.${videoExt(codec)}`);
    const segments = chunkRanges(70).map((_, i) => chunkSegmentPath(out, i));
    for (const [i, frames] of chunkRanges(70).entries())
      await renderer.render({ ...job('video', scene, params, 'ts'), frames, outPath: segments[i]! }, hooks());
    // with each segment's frame count, so the join checks them (a Matroska segment is counted like an MPEG-TS one)
    const counts = chunkRanges(70).map((r) => r.to - r.from);
    await joinSegments(segments, out, 'ffmpeg', counts, codec);
    assert.ok((await readFile(whole)).equals(await readFile(out)), `${codec}: split apart gave other bytes`);
  });
}

test('a transparent ProRes 4444 in two chunks keeps its alpha across the join', async () => {
  const path = await video(sliding(7, false), { codec: 'prores', transparent: true, fps: FPS, width: W, height: H });
  const p = await probe(path);
  assert.deepEqual([p.pixFmt, p.frames], ['yuva444p12le', 70]);
  const frames = decodeRgba(path, 'prores');
  assert.equal(frames.length, 70);
  for (const i of [0, 59, 60, 69]) assert.equal(frames[i]![3], 0, `frame ${i}: corner alpha`);
});
