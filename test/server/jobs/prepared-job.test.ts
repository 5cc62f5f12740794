// One prepared job (issue 51 row 1): admission's estimate compiles a drawn job's program in an evaluation thread,
// which keeps it by its key, and the job is stored with what the estimate learnt (the program's key, its frames and
// size); the renderer takes the program by that key, so a frame, a video and each chunk of a long video compile once
// in all (before: once at admission and once more for every item rendered, 2 + chunks for a video in chunks).
// Asserted on the renderer's own count of compiles and on the stored record, never on time.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { realRenderer, startApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { chunkRanges } from '../../../src/contract/chunks.js';
import { programKey } from '../../../src/render/program-cache.js';

const renderer = realRenderer();
const t = await startApp({ renderer, ownsRenderer: false, config: { jobTimeoutMs: 600_000 } });
after(async () => {
  await t.close();
  await renderer.close();
});

const CHUNK = LIMITS.videoChunkFrames;
/** A moving square; `tag` makes each test's source its own, so no thread holds its program before it is posted. */
const scene = (tag: string) => `runner "0.0.13";
use std.shapes.*;
use std.anim.*;
scene slide(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -300px, 1s => 300px };
  compose [rect(width: 1920px, height: 1080px, fill: #102030), rect(width: 200px, height: 200px, fill: #ffffff).translate(x: x)]
}
// ${tag}
`;

/** Posts a job, waits for it to end ready, and says how many programs the renderer compiled for it. */
async function compilesOf(url: string, body: { source: string; params: Record<string, number> }) {
  const before = renderer.counters().compiles;
  const r = await post(t.app, url, body);
  assert.equal(r.statusCode, 202, r.body);
  const id = r.json().job_id as string;
  const v = (await waitJob(t.app, id, 300_000)).json();
  assert.equal(v.status, 'ready', JSON.stringify(v));
  return { compiles: renderer.counters().compiles - before, rec: (await t.app.jobs.get(id))! };
}

test('a frame job compiles its program once: at admission; the render takes it from the thread that estimated it', async () => {
  const source = scene('frame');
  const { compiles, rec } = await compilesOf('/v1/frame', { source, params: { width: 64, height: 36, at: 0.5 } });
  assert.equal(compiles, 1);
  assert.deepEqual(rec.prepared, { program: programKey(source, undefined), frames: 1, width: 64, height: 36 });
});

test('a video of one chunk compiles once', async () => {
  const { compiles, rec } = await compilesOf('/v1/render', {
    source: scene('one chunk'),
    params: { fps: 10, duration: CHUNK / 10, width: 64, height: 36 },
  });
  assert.equal(compiles, 1);
  assert.equal(rec.prepared?.frames, CHUNK);
});

test('a video of three chunks compiles once, not once for its estimate and once for every chunk', async () => {
  const frames = 3 * CHUNK;
  assert.equal(chunkRanges(frames).length, 3);
  const { compiles, rec } = await compilesOf('/v1/render', {
    source: scene('three chunks'),
    params: { fps: 10, duration: frames / 10, width: 64, height: 36 },
  });
  assert.equal(compiles, 1);
  assert.equal(rec.prepared?.frames, frames);
  assert.equal(rec.timings?.chunks, 3, JSON.stringify(rec.timings));
});
