// The join item of a chunked video (jobs/join-item.ts), run through ItemRunner.run as a queue hands it, over real disk
// stores and ffmpeg's real join of real segments: joined, the job is ready with the chunks' timings; failed, it ends
// the one way every failed item does (jobs/item-ends.ts's fail()): the record in error with a registered code and its
// sentence, the metrics told of one failed join, and every segment the job's chunks left gone with it. A chunk or a
// join whose job is cancelled while it runs ends stopped, and says so in the log (`render_stopped`) however the end
// was noticed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { Writable } from 'node:stream';
import pino from 'pino';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeRenderer, silentLog, type FakeBehaviour } from '../../helpers/app.js';
import { locally, MemoryJobStore } from '../../../src/server/jobs/store/memory.js';
import type { JobRecord } from '../../../src/server/jobs/store/port.js';
import { ItemRunner, type ItemEvents } from '../../../src/server/jobs/run-item.js';
import { segmentKey, type ChunkResult } from '../../../src/server/jobs/work-items.js';
import { AssetStore } from '../../../src/server/storage/asset-store.js';
import { OutputStore } from '../../../src/server/storage/output-store.js';
import { DiskStorage } from '../../../src/server/storage/storage.js';
import type { JoinSegments } from '../../../src/render/renderer-port.js';
import { segmentJoiner } from '../../../src/render/ffmpeg/join.js';

let dir: string;
/** real H.264 segments (MPEG-TS, as chunk items leave them): a full chunk's 60 frames, and the last chunk's 30 */
const segment: Record<number, Buffer> = {};
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cmr-join-item-'));
  for (const frames of [60, 30]) {
    const ts = join(dir, `chunk-${frames}.ts`);
    execFileSync('ffmpeg', [
      ...['-v', 'error', '-f', 'lavfi', '-i', 'testsrc=size=64x64:rate=30', '-frames:v', String(frames)],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', '-f', 'mpegts', ts],
    ]);
    segment[frames] = await readFile(ts);
  }
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

let n = 0;
/**
 * `behaviour`: what the renderer does inside a chunk's render; `beforeJoin`: what happens as the join starts (a
 * cancel arriving meanwhile). The runner's log lines are kept in `lines`.
 */
async function rig(o: { behaviour?: FakeBehaviour; beforeJoin?: () => Promise<void> } = {}) {
  const name = `rig-${++n}`;
  const store = locally(new MemoryJobStore());
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
        done();
      },
    }),
  );
  const renderer = new FakeRenderer();
  renderer.behaviour = o.behaviour ?? null;
  const joiner = segmentJoiner('ffmpeg');
  const joinSegments: JoinSegments = async (...args) => {
    await o.beforeJoin?.();
    return joiner(...args);
  };
  const files = new DiskStorage(join(dir, `${name}-files`));
  const segments = new DiskStorage(join(dir, `${name}-segments`));
  await files.init();
  await segments.init();
  const events = new EventEmitter<ItemEvents>();
  const parts: { part: string; status: string }[] = [];
  const ended: JobRecord[] = [];
  events.on('part', (e) => parts.push({ part: e.part, status: e.status }));
  events.on('ended', (r) => ended.push(r));
  const runner = new ItemRunner({
    store,
    renderer,
    joinSegments,
    assets: new AssetStore(files),
    outputs: new OutputStore({ files, store, log: silentLog, now: Date.now }),
    segments,
    jobTimeoutMs: 10_000,
    scratch: (s) => join(dir, 'scratch', s),
    events,
    log,
    now: Date.now,
  });
  const rec: JobRecord = {
    job_id: `join-${process.pid}-${n}`,
    kind: 'video',
    status: 'pending',
    created_at: Date.now(),
    source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n',
    params: { duration: 5, fps: 30 },
    assets: {},
    frames: 150,
  };
  await store.put(rec);
  const join3 = (results: ChunkResult[]) =>
    runner.run(
      { id: rec.job_id, part: 'join', chunks: 3, frames: 150 },
      {
        signal: new AbortController().signal,
        stopReason: () => undefined,
        report: () => {},
        chunkResults: async () => results,
      },
    );
  const handle = {
    signal: new AbortController().signal,
    stopReason: () => undefined,
    report: () => {},
    chunkResults: async () => [],
  };
  const runChunk = (index: number) =>
    runner.run({ id: rec.job_id, part: 'chunk', index, from: index * 60, to: index * 60 + 60 }, handle);
  const cancel = () =>
    store.endIfPending({ ...rec, status: 'error', code: 'cancelled', message: 'cancelled', completed_at: Date.now() });
  return { name, store, files, segments, rec, parts, ended, lines, join3, runChunk, cancel };
}

const chunk = (frames = 60): ChunkResult => ({ width: 64, height: 64, runner: '0.0.3', frames, ms: 10, timings: {} });

test('three segments: joined into one 150-frame video, the job ready with the chunks timed, the segments gone', async () => {
  const r = await rig();
  for (const i of [0, 1, 2]) await r.segments.put(segmentKey(r.rec.job_id, i), segment[i < 2 ? 60 : 30]!);
  const outcome = await r.join3([chunk(), chunk(), chunk(30)]);
  assert.deepEqual(outcome, { status: 'ready' });
  const stored = (await r.store.get(r.rec.job_id))!;
  assert.equal(stored.status, 'ready');
  assert.equal(stored.timings?.chunks, 3);
  assert.equal(stored.timings?.chunk_sum_ms, 30);
  assert.equal(typeof stored.timings?.join_ms, 'number');
  const file = join(dir, `${r.name}-files`, stored.output!.filename);
  assert.ok(existsSync(file), 'the output is stored');
  const frames = execFileSync('ffprobe', [
    ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
    ...['-show_entries', 'stream=nb_read_frames', '-of', 'csv=p=0', file],
  ]);
  assert.equal(String(frames).trim(), '150');
  assert.deepEqual(r.parts, [{ part: 'join', status: 'ready' }]);
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], 'no segment left');
});

test('a chunk that never reported: the job ends video_incomplete, once, and its segments go', async () => {
  const r = await rig();
  await r.segments.put(segmentKey(r.rec.job_id, 0), segment[60]!);
  await r.segments.put(segmentKey(r.rec.job_id, 2), segment[30]!);
  // two of three chunk results, as BullMQ hands a parent whose child left no value
  const outcome = await r.join3([chunk(), chunk()]);
  const message = 'render failed: a chunk of the video is missing';
  assert.deepEqual(outcome, { status: 'error', message });
  const stored = (await r.store.get(r.rec.job_id))!;
  assert.equal(stored.status, 'error');
  assert.equal(stored.code, 'video_incomplete');
  assert.equal(stored.message, message);
  assert.deepEqual(r.parts, [{ part: 'join', status: 'error' }]);
  assert.deepEqual(
    r.ended.map((e) => e.code),
    ['video_incomplete'],
  );
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], 'no segment left');
});

test('every chunk reported but a segment is gone from the store: video_incomplete naming it, and the rest go', async () => {
  const r = await rig();
  await r.segments.put(segmentKey(r.rec.job_id, 0), segment[60]!);
  await r.segments.put(segmentKey(r.rec.job_id, 2), segment[30]!);
  const outcome = await r.join3([chunk(), chunk(), chunk(30)]);
  const message = 'render failed: chunk 2 of 3 is missing';
  assert.deepEqual(outcome, { status: 'error', message });
  const stored = (await r.store.get(r.rec.job_id))!;
  assert.equal(stored.status, 'error');
  assert.equal(stored.code, 'video_incomplete');
  assert.equal(stored.message, message);
  assert.equal(stored.output, undefined, 'no output kept');
  assert.deepEqual(r.parts, [{ part: 'join', status: 'error' }]);
  assert.equal(r.ended.length, 1);
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], 'no segment left');
});

test('a job cancelled before its join: nothing is joined, the segments go, the cancel stands', async () => {
  const r = await rig();
  await r.segments.put(segmentKey(r.rec.job_id, 0), segment[60]!);
  await r.store.endIfPending({ ...r.rec, status: 'error', code: 'cancelled', message: 'cancelled', completed_at: 1 });
  const outcome = await r.join3([chunk(), chunk(), chunk(30)]);
  assert.deepEqual(outcome, { status: 'stopped' });
  assert.equal((await r.store.get(r.rec.job_id))!.code, 'cancelled');
  assert.deepEqual(r.parts, [{ part: 'join', status: 'stopped' }]);
  assert.deepEqual(r.ended, []);
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], 'no segment left');
});

const stoppedLines = (r: { lines: Record<string, unknown>[]; rec: JobRecord }) =>
  r.lines.filter((l) => l.job_id === r.rec.job_id && l.event === 'render_stopped').map((l) => l.part);

test('a chunk whose job is cancelled after its last progress report: stopped, logged render_stopped, segments gone', async () => {
  // the cancel lands while the chunk draws and no progress report follows it: only the chunk's own end can notice
  const r = await rig({ behaviour: async () => void (await r.cancel()) });
  await r.segments.put(segmentKey(r.rec.job_id, 0), segment[60]!);
  const outcome = await r.runChunk(1);
  assert.deepEqual(outcome, { status: 'stopped' });
  assert.equal((await r.store.get(r.rec.job_id))!.code, 'cancelled');
  assert.deepEqual(r.parts, [{ part: 'chunk', status: 'stopped' }]);
  assert.deepEqual(stoppedLines(r), ['1'], 'the worker says it stopped the render');
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], "its segment and its sibling's gone");
});

test('a join whose job is cancelled while it joins: stopped, logged render_stopped, no output, segments gone', async () => {
  const r = await rig({ beforeJoin: async () => void (await r.cancel()) });
  for (const i of [0, 1, 2]) await r.segments.put(segmentKey(r.rec.job_id, i), segment[i < 2 ? 60 : 30]!);
  const outcome = await r.join3([chunk(), chunk(), chunk(30)]);
  assert.deepEqual(outcome, { status: 'stopped' });
  const stored = (await r.store.get(r.rec.job_id))!;
  assert.deepEqual([stored.code, stored.output], ['cancelled', undefined]);
  assert.deepEqual(r.parts, [{ part: 'join', status: 'stopped' }]);
  assert.deepEqual(stoppedLines(r), ['join'], 'the worker says it stopped the join');
  assert.deepEqual(await r.segments.list(r.rec.job_id), [], 'no segment left');
});
