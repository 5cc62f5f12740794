// Retention and the output byte budget on an S3-compatible bucket (s3rver on a loopback port): our own sweep deletes
// an output object 24 hours after it was written, not a millisecond before, and an uploaded asset with it; the
// budget (OUTPUT_MAX_BYTES) counts the bucket's bytes. A fake renderer writes the files: the storage is under test.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { FakeRenderer, multipart, ownExampleImage, startApp, type TestApp } from '../../helpers/app.js';
import { runJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';

let s3: TestS3;
let t: TestApp;
let frozen: number | undefined;
const now = () => frozen ?? Date.now();
const DAY = 24 * 3600_000;

before(async () => {
  s3 = await TestS3.start();
  t = await startApp({ renderer: new FakeRenderer(), now, config: s3.useInProcess('retention') });
});
after(async () => {
  await t?.close();
  await s3?.close();
});

async function keys(prefix: string): Promise<string[]> {
  const c = new S3Client({ forcePathStyle: true });
  const r = await c.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  c.destroy();
  return (r.Contents ?? []).map((o) => o.Key!);
}

test('an output object goes 24 hours after it was written, not a millisecond before; an asset with its day', async () => {
  const up = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'a.png', type: 'image/png', data: ownExampleImage('sunset.png') }]),
  });
  const key = up.json().assets['a.png'];
  const job = (await runJob(t.app, '/v1/frame', { source: 'x' })).json();
  assert.equal(job.status, 'ready');
  const name = job.url.split('/').pop();
  assert.deepEqual(await keys(`retention/outputs/${name}`), [`retention/outputs/${name}`]);
  try {
    frozen = job.completed_at + DAY - 1;
    await t.app.retention.sweep();
    assert.equal((await t.app.inject({ url: job.url })).statusCode, 200, '1 ms before');
    frozen = job.completed_at + DAY;
    await t.app.retention.sweep();
    assert.equal((await t.app.inject({ url: job.url })).statusCode, 404);
    assert.equal((await t.app.inject({ url: `/v1/jobs/${job.job_id}` })).statusCode, 404);
    assert.deepEqual(await keys(`retention/outputs/${name}`), [], 'the object is gone from the bucket');
    // an asset's day counts from the bucket's own time (whole seconds): a few seconds later it is gone too
    frozen = Date.now() + DAY + 5_000;
    await t.app.retention.sweep();
    assert.deepEqual(await keys(`retention/assets/${key}`), []);
  } finally {
    frozen = undefined;
  }
});

test('OUTPUT_MAX_BYTES counts the bucket: a job that would pass what is left ends storage_full, the young output stays', async () => {
  // the budget holds one output of the fake renderer and a little more, not two
  const small = await startApp({
    renderer: new FakeRenderer(),
    config: { ...s3.useInProcess('budget'), outputMaxBytes: 100 },
  });
  try {
    const first = (await runJob(small.app, '/v1/frame', { source: 'x' })).json();
    assert.equal(first.status, 'ready', JSON.stringify(first));
    const second = (await runJob(small.app, '/v1/frame', { source: 'y' })).json();
    assert.equal(second.status, 'error', JSON.stringify(second));
    assert.equal(second.code, 'storage_full');
    assert.equal((await keys('budget/outputs/')).length, 1, 'the output younger than 24 h is kept');
  } finally {
    await small.close();
  }
});
