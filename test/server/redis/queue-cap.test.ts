// MAX_QUEUED_JOBS counts across API processes (Redis mode): two APIs with a cap of 5 and no worker take 5 jobs
// between them, not 5 each (before, each API read the queue's size once a second, and two APIs with a cap of 200
// accepted 400). At the cap a POST is 503 queue_full with retry-after; a cancel frees a place for the next.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';

const CAP = 5;
let redis: TestRedis;
let dataDir: string;
let apis: StartedProcess[] = [];

before(async () => {
  redis = await TestRedis.start();
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-cap-'));
  const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, RENDER_CONCURRENCY: '0', MAX_QUEUED_JOBS: String(CAP) };
  apis = await Promise.all([startProcess('api', env), startProcess('api', env)]);
});
after(async () => {
  await Promise.all(apis.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const FRAME = { source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n', params: { width: 32 } };
async function post(api: StartedProcess) {
  const r = await fetch(`${api.url}/v1/frame`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(FRAME),
  });
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: (await r.json()) as Record<string, string>,
  };
}

test('two APIs, a cap of 5, 16 POSTs at once: exactly 5 accepted, the rest 503 queue_full; a cancel frees one place', async () => {
  const answers = await Promise.all(Array.from({ length: 16 }, (_, i) => post(apis[i % 2]!)));
  const accepted = answers.filter((a) => a.status === 202);
  assert.equal(accepted.length, CAP, JSON.stringify(answers.map((a) => a.status)));
  for (const a of answers.filter((x) => x.status !== 202)) {
    assert.equal(a.status, 503);
    assert.equal(a.body.code, 'queue_full');
    assert.ok(Number(a.retryAfter) >= 1);
  }
  // at the cap on either API; one cancelled on A makes room for one more on B, and only one
  assert.equal((await post(apis[1]!)).status, 503);
  const del = await fetch(`${apis[0]!.url}/v1/jobs/${accepted[0]!.body.job_id}`, { method: 'DELETE' });
  assert.equal(del.status, 200);
  assert.equal((await post(apis[1]!)).status, 202);
  assert.equal((await post(apis[0]!)).status, 503);
});
