// Long videos in chunks, in one process (the embedded service's path): a video of more than LIMITS.videoChunkFrames
// frames is rendered as closed segments joined without re-encoding; the cuts change no frame count, no duration and
// no pixel, and a video of one chunk keeps its plain single encode.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { realRenderer } from '../helpers/app.js';
import { LONG_SLIDE, decodeFrames, meanAbsDiff } from '../helpers/video.js';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { LIMITS } from '../../src/contract/limits.js';
import { chunkRanges, isChunked } from '../../src/contract/chunks.js';
import type { RenderJob } from '../../src/render/renderer-port.js';
import { ChunkedVideos } from '../../src/render/chunked-video.js';
import { segmentJoiner } from '../../src/render/ffmpeg/join.js';

// long videos cut in chunks and joined above the renderer, as a runner or a queued job's items do
let renderer: ChunkedVideos;
let dir: string;
before(async () => {
  renderer = new ChunkedVideos(realRenderer(), segmentJoiner(process.env.FFMPEG_PATH ?? 'ffmpeg'));
  await renderer.start();
  dir = await mkdtemp(join(tmpdir(), 'cmr-chunks-'));
});
after(async () => {
  await renderer.close();
  await rm(dir, { recursive: true, force: true });
});

const W = 320;
const H = 180;
let seq = 0;
function job(kind: RenderJob['kind'], params: RenderJob['params'], ext: string): RenderJob {
  const id = `job${seq++}`;
  return { id, kind, source: LONG_SLIDE, params, assets: {}, outPath: join(dir, `${id}.${ext}`) };
}
const hooks = () => ({ signal: new AbortController().signal });

test('chunk ranges: exactly LIMITS.videoChunkFrames frames each, the last shorter; one chunk at the edge', () => {
  const n = LIMITS.videoChunkFrames;
  assert.deepEqual(chunkRanges(n), [{ from: 0, to: n }]);
  assert.equal(isChunked(n), false);
  assert.equal(isChunked(n + 1), true);
  assert.deepEqual(chunkRanges(n + 1), [
    { from: 0, to: n },
    { from: n, to: n + 1 },
  ]);
  assert.deepEqual(
    chunkRanges(130).map((r) => r.to - r.from),
    [60, 60, 10],
  );
});

test('a 10 s video in three chunks: exact frame count and duration, each frame equals the PNG at its time', async () => {
  const fps = 13;
  const j = job('video', { fps, width: W, height: H }, 'mp4');
  const seen: number[] = [];
  const out = await renderer.render(j, {
    signal: new AbortController().signal,
    onProgress: (_p, f) => seen.push(f!.done),
  });
  assert.equal(out.frames, 130);
  assert.equal(seen.at(-1), 130, 'progress counts frames over all chunks');
  assert.ok(
    seen.every((d, i) => i === 0 || d >= seen[i - 1]!),
    'progress never goes back',
  );
  assert.ok(out.timings.join_ms !== undefined);
  const p = await probe(j.outPath);
  assert.equal(p.frames, 130);
  assert.ok(Math.abs(p.duration - 10) < 0.01, `duration ${p.duration}`);
  const bytes = await readFile(j.outPath);
  assert.ok(bytes.indexOf('moov') < bytes.indexOf('mdat'), '+faststart');
  // no segment is left next to the output
  assert.deepEqual(
    (await readdir(dir)).filter((n) => n.startsWith(`${j.id}.`)),
    [`${j.id}.mp4`],
  );
  const frames = decodeFrames(j.outPath, W, H);
  assert.equal(frames.length, 130);
  // around both cuts (59|60, 119|120), the first and the last frame
  for (const i of [0, 30, 59, 60, 61, 119, 120, 129]) {
    const f = job('frame', { at: i / fps, width: W, height: H }, 'png');
    await renderer.render(f, hooks());
    const png = PNG.sync.read(await readFile(f.outPath));
    const rgb = Buffer.alloc(W * H * 3);
    for (let k = 0; k < W * H; k++) png.data.copy(rgb, k * 3, k * 4, k * 4 + 3);
    const d = meanAbsDiff(frames[i]!, rgb);
    assert.ok(d < 2, `frame ${i}: mean difference ${d.toFixed(2)} from the PNG at its time`);
  }
});

test('a video of exactly one chunk is one plain MP4 encode; the same request twice gives the same bytes', async () => {
  const a = job('video', { fps: 30, duration: 2, width: W, height: H }, 'mp4');
  await renderer.render(a, hooks());
  const p = await probe(a.outPath);
  assert.equal(p.frames, 60);
  const b = job('video', { fps: 13, width: W, height: H }, 'mp4');
  const c = job('video', { fps: 13, width: W, height: H }, 'mp4');
  await renderer.render(b, hooks());
  await renderer.render(c, hooks());
  assert.ok((await readFile(b.outPath)).equals(await readFile(c.outPath)), 'chunked outputs differ between runs');
});
