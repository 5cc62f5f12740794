// The job record's one owner (src/server/jobs/job-records.ts): its transitions as a client would see them in the
// record. A job starts once, ends once (the first end wins, ready or error), is never started again once ended, and
// a stopped job handed back is pending and unstarted; a webhook's delivery state changes nothing else of the record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryJobStore, locally } from '../../../src/server/jobs/store/memory.js';
import { JobRecords } from '../../../src/server/jobs/job-records.js';
import type { JobOutput, JobRecord } from '../../../src/server/jobs/store/port.js';
import { readyFields } from '../../../src/server/jobs/job-failure.js';

let clock = 1_000;
const now = () => clock;

function pending(id: string, extra: Partial<JobRecord> = {}): JobRecord {
  return {
    job_id: id,
    kind: 'frame',
    status: 'pending',
    created_at: clock,
    source: 's',
    params: {},
    assets: {},
    ...extra,
  };
}

const OUTPUT: JobOutput = {
  filename: 'a.png',
  mime: 'image/png',
  bytes: 1,
  sha256: '0'.repeat(64),
  width: 1,
  height: 1,
  written_at: 5_000,
};

const open = () => new JobRecords(locally(new MemoryJobStore()), now);

test('pending -> started -> ready; then no start, no second end, no hand-back', async () => {
  const records = open();
  const rec = pending('a');
  await records.create(rec);
  clock = 2_000;
  assert.equal(await records.start(rec), true);
  assert.equal(rec.started_at, 2_000);
  assert.equal(await records.start({ ...rec }), false, 'a started job does not start again');
  const ready = await records.ready('a', (cur) => readyFields(cur, OUTPUT, '0.0.3', {}));
  assert.equal(ready?.status, 'ready');
  assert.deepEqual(ready?.timings, { queue_wait_ms: 1_000, total_ms: 4_000 });

  const stored = () => records.get('a');
  assert.equal(await records.start({ ...(await stored())!, started_at: undefined }), false, 'ready -> started');
  assert.equal(await records.fail('a', { message: 'cancelled', code: 'cancelled' }), undefined, 'ready -> error');
  assert.equal(await records.ready('a', () => ({})), undefined, 'ready -> ready');
  assert.equal(await records.unstart('a'), undefined, 'ready -> pending');
  assert.equal((await stored())?.status, 'ready');
  assert.equal((await stored())?.output?.filename, 'a.png');
});

test('the first end wins: a cancel then a finish, and two racing ends, leave one end', async () => {
  const records = open();
  await records.create(pending('b'));
  const cancelled = await records.fail('b', { message: 'cancelled', code: 'cancelled' });
  assert.deepEqual([cancelled?.status, cancelled?.code], ['error', 'cancelled']);
  let cacheSaw = false;
  const late = await records.ready(
    'b',
    (cur) => readyFields(cur, OUTPUT, '0.0.3', {}),
    async () => {
      cacheSaw = true;
    },
  );
  assert.equal(late, undefined, 'error -> ready is refused');
  assert.equal(cacheSaw, false, 'nothing is told of a ready that lost');
  assert.equal((await records.get('b'))?.code, 'cancelled');

  await records.create(pending('c'));
  const ends = await Promise.all([
    records.fail('c', { message: 'cancelled', code: 'cancelled' }),
    records.ready('c', (cur) => readyFields(cur, OUTPUT, '0.0.3', {})),
  ]);
  assert.equal(ends.filter(Boolean).length, 1, 'exactly one end won');
  assert.equal((await records.get('c'))?.status, ends[0] ? 'error' : 'ready');
});

test('a started job handed back is pending and unstarted; one never started is left as it is', async () => {
  const records = open();
  const rec = pending('d');
  await records.create(rec);
  assert.equal(await records.unstart('d'), undefined, 'never started');
  await records.start(rec);
  const back = await records.unstart('d');
  assert.deepEqual([back?.status, back?.started_at], ['pending', undefined]);
  assert.equal((await records.get('d'))?.started_at, undefined);
  assert.equal(await records.start((await records.get('d'))!), true, 'it starts again at the next start');
});

test('a new record must be pending and unstarted; a webhook attempt writes only the delivery state of an ended job', async () => {
  const records = open();
  await assert.rejects(records.create({ ...pending('e'), status: 'ready' }));
  await records.create(pending('f', { webhook: { url: 'http://127.0.0.1:1/hook' } }));
  assert.equal(await records.webhookAttempt('f', (w) => (w.attempts = 1)), undefined, 'a pending job has no delivery');
  await records.fail('f', { message: 'cancelled', code: 'cancelled' });
  const ended = await records.get('f');
  assert.ok(await records.webhookAttempt('f', (w) => (w.attempts = 1)));
  const after = await records.get('f');
  assert.deepEqual({ ...after, webhook: undefined }, { ...ended, webhook: undefined });
  assert.equal(after?.webhook?.attempts, 1);
});
