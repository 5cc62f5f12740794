// POST /v1/vectorize's inline image and the asset budget (src/server/jobs/vectorize-input.ts, jobs/submit.ts): the
// image counts against ASSETS_MAX_BYTES like an upload (at the budget 202, a byte past it 503 storage_full), and it is
// stored only once its job is admitted, so a POST refused for any reason (the budget, the per-client cap) leaves no
// file in assets/. The renderer holds each job until the test lets it go (this is about admission, not tracing).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';

const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});

/** `n` bytes the door takes for a PNG (its signature, then zeros): judged by its bytes, never decoded here. */
function png(n: number): string {
  const bytes = Buffer.alloc(n);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  return bytes.toString('base64');
}

/** The stored assets' files (each asset and its .sha256 beside it). */
const assetFiles = async (t: TestApp) => (await readdir(join(t.dataDir, 'assets')).catch(() => [])).sort();

async function held(config: Record<string, number>) {
  const renderer = new FakeRenderer();
  const hold = gate();
  renderer.behaviour = () => hold.promise;
  const t = await startApp({ renderer, config });
  apps.push(t);
  return { t, hold };
}

test('vectorize: the inline image takes ASSETS_MAX_BYTES like an upload: at the budget 202, a byte past it 503 and nothing stored', async () => {
  const budget = 4000;
  const { t, hold } = await held({ assetsMaxBytes: budget });
  const over = await post(t.app, '/v1/vectorize', { image: png(budget + 1) });
  assert.equal(over.statusCode, 503, over.body);
  assert.equal(over.json().code, 'storage_full');
  assert.match(over.json().error, /asset storage is full/);
  assert.deepEqual(await assetFiles(t), []);

  const at = await post(t.app, '/v1/vectorize', { image: png(budget) });
  assert.equal(at.statusCode, 202, at.body);
  const stored = await assetFiles(t);
  assert.equal(stored.length, 2, stored.join(', '));
  // the budget is spent: one byte more is refused, and leaves nothing
  const one = await post(t.app, '/v1/vectorize', { image: png(8) });
  assert.equal(one.statusCode, 503, one.body);
  assert.equal(one.json().code, 'storage_full');
  assert.deepEqual(await assetFiles(t), stored);
  hold.open();
  assert.equal((await waitJob(t.app, at.json().job_id)).json().status, 'ready');
});

test('vectorize: a POST refused by the per-client cap (429) stores no image, and its reservation is given back', async () => {
  const size = 3000;
  const { t, hold } = await held({ assetsMaxBytes: 2 * size, maxQueuedJobsPerClient: 1 });
  const first = await post(t.app, '/v1/vectorize', { image: png(size) });
  assert.equal(first.statusCode, 202, first.body);
  const stored = await assetFiles(t);
  assert.equal(stored.length, 2);
  for (let i = 0; i < 4; i++) {
    const refused = await post(t.app, '/v1/vectorize', { image: png(size) });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().code, 'client_queue_full');
  }
  assert.deepEqual(await assetFiles(t), stored);
  hold.open();
  assert.equal((await waitJob(t.app, first.json().job_id)).json().status, 'ready');
  // the refused ones held no part of the budget: the second half of it is still there for the next job
  const next = await post(t.app, '/v1/vectorize', { image: png(size) });
  assert.equal(next.statusCode, 202, next.body);
  assert.equal((await waitJob(t.app, next.json().job_id)).json().status, 'ready');
  assert.equal((await assetFiles(t)).length, 4);
});
