// Joining a chunked video's segments never lies: ffmpeg's concat exits 0 when a segment after the first cannot be
// opened (three 60-frame segments, the middle one gone: 60 frames, "ready"), so the join checks every segment and
// the result against the frames the chunks promised.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IncompleteVideo, joinSegments, segmentJoiner } from '../../../src/render/ffmpeg/join.js';
import { VideoEncoder } from '../../../src/render/ffmpeg/video.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';
import { i420Bytes } from '../../../src/contract/yuv.js';
import { JobFailure } from '../../../src/render/renderer-port.js';

const dir = mkdtempSync(join(tmpdir(), 'cmrender-join-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const [W, H, FPS, PER] = [64, 36, 30, 60];

/** Three closed 60-frame segments of a moving grey level, as chunks write them. */
async function segments(tag: string): Promise<string[]> {
  const out: string[] = [];
  for (let s = 0; s < 3; s++) {
    const path = join(dir, `${tag}-${s}.ts`);
    const enc = new VideoEncoder({ width: W, height: H, fps: FPS, outPath: path, container: 'mpegts' });
    for (let f = 0; f < PER; f++) await enc.write(Buffer.alloc(i420Bytes(W, H), 16 + ((s * PER + f) % 200)));
    await enc.finish();
    out.push(path);
  }
  return out;
}

test('all three segments: one MP4 of 180 frames', async () => {
  const segs = await segments('whole');
  const out = join(dir, 'whole.mp4');
  await joinSegments(segs, out, 'ffmpeg', [PER, PER, PER]);
  assert.equal((await probe(out)).frames, 3 * PER);
});

test('the middle segment missing: the join fails saying which, and leaves no output', async () => {
  const segs = await segments('gap');
  rmSync(segs[1]!);
  const out = join(dir, 'gap.mp4');
  await assert.rejects(joinSegments(segs, out, 'ffmpeg', [PER, PER, PER]), (err: Error) => {
    assert.ok(err instanceof IncompleteVideo);
    assert.equal(err.message, 'render failed: chunk 2 of 3 is missing');
    return true;
  });
  assert.equal(existsSync(out), false);
  assert.equal(existsSync(`${out}.tmp`), false);
  // the join a job's join item runs: the job ends with its registered code, video_incomplete
  await assert.rejects(segmentJoiner('ffmpeg')(segs, out, [PER, PER, PER]), (err: Error) => {
    assert.ok(err instanceof JobFailure);
    assert.equal(err.code, 'video_incomplete');
    assert.equal(err.message, 'render failed: chunk 2 of 3 is missing');
    return true;
  });
});

test('a segment cut short (half its bytes): the join fails naming its frames, and leaves no output', async () => {
  const segs = await segments('short');
  truncateSync(segs[2]!, Math.floor(statSync(segs[2]!).size / 2));
  const out = join(dir, 'short.mp4');
  await assert.rejects(joinSegments(segs, out, 'ffmpeg', [PER, PER, PER]), (err: Error) => {
    assert.ok(err instanceof IncompleteVideo);
    assert.match(err.message, /^render failed: chunk 3 of 3 has \d+ of its 60 frames$/);
    return true;
  });
  assert.equal(existsSync(out), false);
});

test('the same segments joined twice give the same bytes', async () => {
  const segs = await segments('twice');
  await joinSegments(segs, join(dir, 'a.mp4'), 'ffmpeg', [PER, PER, PER]);
  await joinSegments(segs, join(dir, 'b.mp4'), 'ffmpeg', [PER, PER, PER]);
  assert.ok(readFileSync(join(dir, 'a.mp4')).equals(readFileSync(join(dir, 'b.mp4'))));
});
