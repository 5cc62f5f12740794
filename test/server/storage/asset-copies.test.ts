// Each asset is fetched once per job (issue 51 row 1): with the assets in a bucket, a job's admission estimate and
// every render of it (each chunk of a long video) read one local copy, where the estimate's copy was removed and
// each item downloaded its own (a 3-chunk video: 4 downloads of its image). Asserted on the asset store's count of
// downloads and on the GETs the bucket answered, never on time.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { multipart, ownExampleImage, realRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { TestS3 } from '../../helpers/s3.js';
import { LIMITS } from '../../../src/contract/limits.js';

let s3: TestS3;
let t: TestApp;
const renderer = realRenderer();

before(async () => {
  s3 = await TestS3.start();
  t = await startApp({
    renderer,
    ownsRenderer: false,
    config: { ...s3.useInProcess('copies'), jobTimeoutMs: 600_000 },
  });
});
after(async () => {
  await t?.close();
  await renderer.close();
  await s3?.close();
});

const SCENE = `runner "0.0.13";
use std.shapes.*;
use std.anim.*;
scene s(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -400px, 1s => 400px };
  compose [image("/img/a.png").fit(cover), rect(width: 100px, height: 100px, fill: #ffffff).translate(x: x)]
}
`;

test('a video of three chunks whose image is in a bucket downloads it once: its estimate and its three chunks share the copy', async () => {
  const m = multipart([{ name: 'f', filename: 'a.png', data: ownExampleImage('sunset.png') }]);
  const up = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(up.statusCode, 200, up.body);
  const key = Object.values(up.json().assets as Record<string, string>)[0]!;
  const gets = () => s3.requests.filter((r) => r.startsWith('GET') && r.includes(`/${key}`) && !r.includes('.')).length;
  const downloads = t.app.assetStore.reads.downloads;
  const before = gets();
  const frames = 3 * LIMITS.videoChunkFrames;
  const r = await post(t.app, '/v1/render', {
    source: SCENE,
    assets: { '/img/a.png': key },
    params: { fps: 10, duration: frames / 10, width: 64, height: 36 },
  });
  assert.equal(r.statusCode, 202, r.body);
  const v = (await waitJob(t.app, r.json().job_id, 300_000)).json();
  assert.equal(v.status, 'ready', JSON.stringify(v));
  assert.equal((await t.app.jobs.get(v.job_id))?.timings?.chunks, 3);
  assert.equal(t.app.assetStore.reads.downloads - downloads, 1);
  assert.equal(gets() - before, 1, s3.requests.slice(-20).join('\n'));
});
