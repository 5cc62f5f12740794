// Idempotency-Key on POST /v1/render and /v1/frame: the same key and body answer the same job, also when the
// requests arrive together and after a restart; the same key with another body is 422 idempotency_mismatch.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';
import { waitJob } from '../../helpers/job-client.js';
import { MemoryJobStore } from '../../../src/server/jobs/store/memory.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

function postKeyed(app: FastifyInstance, url: string, body: unknown, key?: string) {
  return app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...(key === undefined ? {} : { 'idempotency-key': key }) },
  });
}

test('10 identical POSTs with one key at once make one job; all answer 202 with its id and Location', async () => {
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake });
  apps.push(t);
  const body = { source: SRC, params: { width: 40, height: 20 } };
  const answers = await Promise.all(
    Array.from({ length: 10 }, () => postKeyed(t.app, '/v1/frame', body, 'key-concurrent-1')),
  );
  for (const r of answers) assert.equal(r.statusCode, 202, r.body);
  const ids = new Set(answers.map((r) => r.json().job_id));
  assert.equal(ids.size, 1);
  const [id] = ids;
  for (const r of answers) assert.equal(r.headers.location, `/v1/jobs/${id}`);
  assert.equal((await waitJob(t.app, id)).json().status, 'ready');
  assert.equal(fake.calls.length, 1);
  // later, with the job ended, the same request still answers the same job; the same body with its keys reordered too
  const again = await postKeyed(
    t.app,
    '/v1/frame',
    { params: { height: 20, width: 40 }, source: SRC },
    'key-concurrent-1',
  );
  assert.equal(again.statusCode, 202);
  assert.equal(again.json().job_id, id);
  assert.equal(fake.calls.length, 1);
  // without a key, or with another key, a new job
  assert.notEqual((await postKeyed(t.app, '/v1/frame', body)).json().job_id, id);
  assert.notEqual((await postKeyed(t.app, '/v1/frame', body, 'key-other')).json().job_id, id);
});

test('the same key with a different body (or route) is 422 idempotency_mismatch; a malformed key 400', async () => {
  const t = await startApp({ renderer: new FakeRenderer() });
  apps.push(t);
  assert.equal((await postKeyed(t.app, '/v1/frame', { source: SRC }, 'k1')).statusCode, 202);
  for (const [url, body] of [
    ['/v1/frame', { source: SRC, params: { at: 1 } }],
    ['/v1/render', { source: SRC }],
  ] as const) {
    const r = await postKeyed(t.app, url, body, 'k1');
    assert.equal(r.statusCode, 422, url);
    assert.equal(r.json().code, 'idempotency_mismatch');
    assert.equal(r.json().error, 'this Idempotency-Key was used with a different request in the last 24 hours');
  }
  for (const key of ['', 'x'.repeat(256), 'with space']) {
    const r = await postKeyed(t.app, '/v1/frame', { source: SRC }, key);
    assert.equal(r.statusCode, 400, JSON.stringify(key));
    assert.equal(r.json().code, 'bad_idempotency_key');
  }
  // a request refused before its job was made does not take the key
  const unknown = { source: SRC, assets: { '/a.png': 'asset_0123456789abcdef0123456789abcdef' } };
  assert.equal((await postKeyed(t.app, '/v1/frame', unknown, 'k2')).json().code, 'unknown_asset');
  assert.equal((await postKeyed(t.app, '/v1/frame', { source: SRC }, 'k2')).statusCode, 202);
});

test('a key lives 24 hours: after that the same key and body make a new job', async () => {
  let clock = Date.now();
  const t = await startApp({ renderer: new FakeRenderer(), now: () => clock });
  apps.push(t);
  const first = (await postKeyed(t.app, '/v1/frame', { source: SRC }, 'day-key')).json().job_id;
  clock += 24 * 3600 * 1000 - 1000;
  assert.equal((await postKeyed(t.app, '/v1/frame', { source: SRC }, 'day-key')).json().job_id, first);
  clock += 2000;
  const later = await postKeyed(
    t.app,
    '/v1/frame',
    { source: 'runner "0.0.3";\nscene t() -> Frame { compose [] }\n' },
    'day-key',
  );
  assert.equal(later.statusCode, 202, 'an expired key binds no body any more');
  assert.notEqual(later.json().job_id, first);
});

test('with RETENTION_MS under 24 hours a key lives as long as its job: once the record is swept, the retry makes a new job', async () => {
  let clock = Date.now();
  const retentionMs = 60 * 60 * 1000;
  const fake = new FakeRenderer();
  const t = await startApp({ renderer: fake, now: () => clock, config: { retentionMs } });
  apps.push(t);
  const first = (await postKeyed(t.app, '/v1/frame', { source: SRC }, 'short-key')).json().job_id;
  assert.equal((await waitJob(t.app, first)).json().status, 'ready');
  clock += retentionMs - 1000;
  assert.equal((await postKeyed(t.app, '/v1/frame', { source: SRC }, 'short-key')).json().job_id, first);
  // the 422 names how long a key lives on this service, not the default's 24 hours
  const other = await postKeyed(t.app, '/v1/render', { source: SRC }, 'short-key');
  assert.equal(other.statusCode, 422);
  assert.equal(other.json().error, 'this Idempotency-Key was used with a different request in the last 1 hour');
  clock += 2000;
  await t.app.retention.sweep();
  assert.equal((await t.app.inject({ url: `/v1/jobs/${first}` })).statusCode, 404, 'the record is gone');
  const retry = await postKeyed(t.app, '/v1/frame', { source: SRC }, 'short-key');
  assert.equal(retry.statusCode, 202);
  const second = retry.json().job_id;
  assert.notEqual(second, first, 'a new job, not the id that 404s');
  assert.equal((await waitJob(t.app, second)).json().status, 'ready');
});

test('a key whose job record is gone before the key expires (evicted) makes a new job', async () => {
  const store = new MemoryJobStore();
  const t = await startApp({ renderer: new FakeRenderer(), store });
  apps.push(t);
  const first = (await postKeyed(t.app, '/v1/frame', { source: SRC }, 'evicted-key')).json().job_id;
  await waitJob(t.app, first);
  await store.delete(first);
  const retry = await postKeyed(t.app, '/v1/frame', { source: SRC }, 'evicted-key');
  assert.equal(retry.statusCode, 202);
  assert.notEqual(retry.json().job_id, first);
});

test('keys survive a restart (they are in the journal)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-idem-'));
  try {
    const a = await startApp({ renderer: new FakeRenderer(), config: { dataDir } });
    const first = (await postKeyed(a.app, '/v1/render', { source: SRC }, 'restart-key')).json().job_id;
    await waitJob(a.app, first);
    await a.close();
    const fake = new FakeRenderer();
    const b = await startApp({ renderer: fake, config: { dataDir } });
    apps.push(b);
    const r = await postKeyed(b.app, '/v1/render', { source: SRC }, 'restart-key');
    assert.equal(r.statusCode, 202);
    assert.equal(r.json().job_id, first);
    assert.equal((await postKeyed(b.app, '/v1/render', { source: 'x' }, 'restart-key')).statusCode, 422);
    assert.equal(fake.calls.length, 0);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
