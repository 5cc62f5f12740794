// What a read of a pending job learns (its place in line, its progress) is kept for that read's view only, not for
// the life of the process (issue 32, row 15): the job service kept an entry per job id read while pending and dropped
// it only when that id was read again after its end, so every job polled while it waited and never polled after
// (a client that gave up, a record evicted or expired) stayed in memory for good. Measured on the heap after a full
// collection: reading 40,000 pending jobs whose records are then gone leaves nothing behind.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { FakeRenderer, gate, startApp, type TestApp } from '../../helpers/app.js';
import { post } from '../../helpers/job-client.js';
import { MemoryJobStore } from '../../../src/server/jobs/store/memory.js';
import type { JobRecord } from '../../../src/server/jobs/store/port.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

const N = 40_000;
const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';

function heapAfterGc(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

test('reading many pending jobs keeps nothing once their records are gone (heap, after a full collection)', async (ctx) => {
  const store = new MemoryJobStore();
  const fake = new FakeRenderer();
  const hold = gate();
  fake.behaviour = () => hold.promise;
  const t = await startApp({ renderer: fake, store });
  apps.push(t);
  // the views still carry what the read learnt: a job rendering is at place 0, one behind it at 1
  const a = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const b = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
  const view = async (id: string) => (await t.app.inject({ url: `/v1/jobs/${id}` })).json();
  const until = Date.now() + 30_000;
  while ((await view(a)).queue_position !== 0) assert.ok(Date.now() < until, 'the first job started');
  assert.equal((await view(b)).queue_position, 1);
  assert.equal(typeof (await view(b)).progress, 'number');

  const rec = (id: string): JobRecord => ({
    job_id: id,
    kind: 'frame',
    status: 'pending',
    created_at: Date.now(),
    source: SRC,
    params: {},
    assets: {},
  });
  let rounds = 0;
  const round = async (read: boolean) => {
    // new ids every round, as new jobs have
    const ids = Array.from({ length: N }, (_, i) => `live-${rounds}-${i}`);
    rounds++;
    for (const id of ids) await store.put(rec(id));
    if (read) for (const id of ids) await t.app.jobs.read(id);
    for (const id of ids) await store.delete(id);
  };
  // warm: code compiled, the store's table grown and shrunk (its size moves the heap by about 1.4 MB either way)
  await round(true);
  await round(true);
  const h0 = heapAfterGc();
  await round(true);
  const kept = heapAfterGc() - h0;
  ctx.diagnostic(`heap after ${N} more jobs put, read while pending and removed: ${kept} bytes more`);
  // an entry per job read was about 100 bytes: 4 MB for 40,000 reads
  assert.ok(kept < 2_000_000, `${kept} bytes kept after ${N} reads of jobs now gone`);
  hold.open();
});
