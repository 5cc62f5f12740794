// A video long enough to be cut in chunks, in the embedded service with the real renderer and one render slot
// (issue 32): its progress counts the frames done over every chunk (a done chunk once counted the whole clip's frames,
// so the job read 100 % after its first chunk), and a small frame posted while one of its chunks renders is served
// between two chunks, not behind the whole video, even once the video has run past its estimate. Asserted on what was recorded (the views read while pending, the
// order in which items ended, the records' times), never on how fast the machine is.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ownExample, realRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { LIMITS } from '../../../src/contract/limits.js';
import type { PartName } from '../../../src/server/jobs/work-items.js';
import { until } from '../../helpers/until.js';

const renderer = realRenderer();
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
  await renderer.close();
});

async function app(now?: () => number): Promise<TestApp> {
  const t = await startApp({
    renderer,
    ownsRenderer: false,
    now,
    config: { renderConcurrency: 1, jobTimeoutMs: 600_000 },
  });
  apps.push(t);
  return t;
}

const CHUNK = LIMITS.videoChunkFrames;
const CHUNKS = 4;
/** 4 chunks of a small picture: fps 10 for CHUNKS x CHUNK frames */
const VIDEO = { source: LONG_SLIDE, params: { fps: 10, duration: (CHUNKS * CHUNK) / 10, width: 64, height: 36 } };

test('a chunked video: the progress read while it is pending never reaches 1 before its last chunk is done, and never counts more than the chunks done and the one rendering', async () => {
  const t = await app();
  let chunksDone = 0;
  t.app.jobs.events.on('part', (e) => {
    if (e.kind === 'video' && e.part === 'chunk' && e.status === 'ready') chunksDone++;
  });
  const r = await post(t.app, '/v1/render', VIDEO);
  assert.equal(r.statusCode, 202, r.body);
  const id = r.json().job_id;
  // every view read while pending, with the chunks done once the read had come back (an upper bound of those done
  // when it was read), sampled at a fixed quick interval so reads fall between chunks
  const seen: { progress: number; chunksDone: number }[] = [];
  let v: { status: string; progress: number } | undefined;
  await until(
    () => `the video to end (${seen.length} reads while pending, ${chunksDone} chunks done)`,
    async () => {
      v = (await t.app.inject({ url: `/v1/jobs/${id}` })).json();
      if (v!.status !== 'pending') return true;
      seen.push({ progress: v!.progress, chunksDone });
      return false;
    },
    { timeoutMs: 300_000, pollMs: 15 },
  );
  assert.equal(v?.status, 'ready', JSON.stringify(v));
  const between = seen.filter((s) => s.chunksDone >= 1 && s.chunksDone < CHUNKS);
  assert.ok(between.length > 0, 'read at least once between its first and its last chunk');
  for (const s of seen) {
    if (s.chunksDone < CHUNKS) assert.ok(s.progress < 1, `progress ${s.progress} with ${s.chunksDone} chunks done`);
    // one slot: at most the chunks done and the one rendering
    assert.ok(
      s.progress <= ((s.chunksDone + 1) * CHUNK) / (CHUNKS * CHUNK),
      `progress ${s.progress} with ${s.chunksDone} of ${CHUNKS} chunks done`,
    );
  }
  assert.ok(
    between.some((s) => s.progress >= s.chunksDone / CHUNKS - 1e-9),
    'the frames of the chunks done are counted',
  );
});

test('RENDER_CONCURRENCY 1: a small frame posted while a chunked video renders past its estimate is served between two of its chunks', async () => {
  // the service's clock moves on past the video's estimate once it has started, as an underestimated video's does
  // (issue 32 row 9: chunks of 6.7-24 s against 2.7 s estimated): its chunks then had waited longer than their
  // estimate, which the queue's aging put ahead of any job arriving later, so the frame waited for the whole video
  let skew = 0;
  const t = await app(() => Date.now() + skew);
  const order: { kind: string; part: PartName }[] = [];
  t.app.jobs.events.on('part', (e) => order.push({ kind: e.kind, part: e.part }));
  const started: string[] = [];
  t.app.jobs.events.on('started', (rec) => started.push(rec.job_id));
  const video = (await post(t.app, '/v1/render', VIDEO)).json().job_id;
  // a quick fixed poll: the frame is posted while the video's first chunk renders
  await until('the video started', () => started.includes(video), { timeoutMs: 120_000, pollMs: 10 });
  const estimateS = (await t.app.jobs.get(video))!.estimate_s!;
  assert.ok(estimateS > 0, 'the video has an estimate');
  skew = Math.ceil(estimateS * 1000) + 1000;
  const r = await post(t.app, '/v1/frame', { source: ownExample('hello.cm'), params: { width: 64 } });
  assert.equal(r.statusCode, 202, r.body);
  const frame = (await waitJob(t.app, r.json().job_id, 300_000)).json();
  assert.equal(frame.status, 'ready', JSON.stringify(frame));
  const v = (await waitJob(t.app, video, 300_000)).json();
  assert.equal(v.status, 'ready', JSON.stringify(v));
  const chunkEnds = order.flatMap((o, i) => (o.kind === 'video' && o.part === 'chunk' ? [i] : []));
  const frameEnd = order.findIndex((o) => o.kind === 'frame');
  assert.equal(chunkEnds.length, CHUNKS);
  assert.ok(frameEnd >= 0);
  // the frame was posted once the first chunk had started: it ends after at most two chunks (the one rendering when
  // it arrived, and one more if that one ended before the frame was in line), never behind the last one
  assert.ok(frameEnd < chunkEnds[CHUNKS - 1]!, `items ended in the order ${JSON.stringify(order)}`);
  assert.ok(frame.completed_at < v.completed_at);
});
