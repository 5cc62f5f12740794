// Budgets one job cannot pass (issue 32 rows 5 and 9), from the reproductions, with real Chromium and ffmpeg:
// - row 5: OUTPUT_MAX_BYTES=20 MiB admitted a 1280x720 60 fps 4 s ProRes HQ of a noise image, which ended ready at
//   386.7 MiB, after which every POST and /healthz answered 503 storage_full for 24 h. Now admission estimates the
//   output's bytes (400 output_too_large), a render whose files pass what the budget has left stops with
//   storage_full (a picture the estimate takes for flat: big blocks of colour, a PNG that compresses to little, and
//   ProRes writes every block's edges), and either way the service takes a small job at once afterwards;
// - row 9: H.265 q100 720p 60 fps of a moving noise image was estimated as a flat picture at the default quality,
//   admitted under JOB_TIMEOUT_MS=60000 and ran into the limit; now it is refused (400 too_much_work) while the same
//   job at the default quality of a flat picture is admitted.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { FakeRenderer, fullRenderer, multipart, startApp, type TestApp } from '../../helpers/app.js';
import { post, runJob, waitJob } from '../../helpers/job-client.js';
import { prng } from '../../helpers/prng.js';
import { encodePng } from '../../../src/render/png.js';
import { estimateWork } from '../../../src/render/work-estimate.js';
import type { RenderJob, WorkEstimate } from '../../../src/render/renderer-port.js';

const W = 1280;
const H = 720;
const MiB = 1024 * 1024;

/** Every pixel random: a noise image (its PNG does not compress). */
function noisePng(): Buffer {
  const rand = prng(32);
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = i % 4 === 3 ? 255 : Math.floor(rand() * 256);
  return encodePng(rgba, W, H);
}

/** 32 x 32 blocks of random colours: a PNG of a few KB (its rows repeat), a picture full of edges for ProRes. */
function blocksPng(): Buffer {
  const rand = prng(5);
  const colours = Array.from({ length: 32 * 32 }, () => [0, 1, 2].map(() => Math.floor(rand() * 256)));
  const rgba = new Uint8Array(W * H * 4);
  for (let y = 0; y < H; y++)
    for (let x = 0; x < W; x++) {
      const c = colours[Math.floor((y * 32) / H) * 32 + Math.floor((x * 32) / W)]!;
      rgba.set([c[0]!, c[1]!, c[2]!, 255], (y * W + x) * 4);
    }
  return encodePng(rgba, W, H);
}

/** One colour. */
function flatPng(): Buffer {
  const rgba = new Uint8Array(W * H * 4);
  for (let i = 0; i < rgba.length; i += 4) rgba.set([40, 90, 160, 255], i);
  return encodePng(rgba, W, H);
}

/** The picture fills the frame, still (ProRes is intra: still or moving writes the same bytes). */
const STILL = `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  compose [image("/img/p.png").fit(cover)]
}
`;
/** The picture slides: every frame differs from the last (what costs an inter-frame encoder). */
const SLIDING = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene s(duration: Duration = 10s) -> Frame {
  let x = animate { 0s => -200px, 10s => 200px };
  compose [image("/img/p.png").fit(cover).translate(x: x)]
}
`;
const SMALL = { source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n', params: { width: 64, height: 64 } };

async function upload(t: TestApp, png: Buffer): Promise<string> {
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'p.png', type: 'image/png', data: png }]),
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets['p.png'] as string;
}

/** The service is not wedged: /healthz is 200 and a small frame renders ready. */
async function takesASmallJob(t: TestApp): Promise<void> {
  assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200);
  const small = (await runJob(t.app, '/v1/frame', SMALL)).json();
  assert.equal(small.status, 'ready', JSON.stringify(small));
  assert.equal((await t.app.inject({ url: small.url })).statusCode, 200);
}

const renderer = fullRenderer();
let t: TestApp;
before(async () => {
  t = await startApp({ renderer, ownsRenderer: false, config: { outputMaxBytes: 20 * MiB } });
  // the estimate thread booted, as a running service's is: under tsx on a loaded machine its first start alone can
  // pass ESTIMATE_TIMEOUT_MS, and a job without an estimate is admitted
  await renderer.estimate({ kind: 'frame', source: SMALL.source, params: SMALL.params, assets: {} });
});
after(async () => {
  await t?.close();
  await renderer.close();
});

test('OUTPUT_MAX_BYTES=20 MiB: the 720p 60 fps 4 s ProRes HQ of a noise image is refused with 400 output_too_large; a small job renders after', async () => {
  const key = await upload(t, noisePng());
  const r = await post(t.app, '/v1/render', {
    source: STILL,
    assets: { '/img/p.png': key },
    params: { width: W, height: H, fps: 60, duration: 4, codec: 'prores' },
  });
  assert.equal(r.statusCode, 400, r.body);
  assert.equal(r.json().code, 'output_too_large');
  assert.match(r.json().error, /over the whole output budget of 20\.0 MiB \(OUTPUT_MAX_BYTES\)/);
  await takesASmallJob(t);
});

test('a render whose file passes what the budget has left stops with storage_full, nothing of it is kept, and a small job renders after', async () => {
  // the blocks compress to almost nothing as a PNG, so the estimate takes them for flat (about 3 MiB of ProRes for
  // these 120 frames, under the budget); ProRes writes about 230 KB a frame of them (~26 MiB in all)
  const key = await upload(t, blocksPng());
  const body = {
    source: STILL,
    assets: { '/img/p.png': key },
    params: { width: W, height: H, fps: 60, duration: 2, codec: 'prores' },
  };
  const r = await post(t.app, '/v1/render', body);
  assert.equal(r.statusCode, 202, r.body);
  const job = (await waitJob(t.app, r.json().job_id, 120_000)).json();
  assert.equal(job.status, 'error', JSON.stringify(job));
  assert.equal(job.code, 'storage_full', JSON.stringify(job));
  assert.match(job.message, /over the \d+ bytes the output budget \(OUTPUT_MAX_BYTES, 20971520\) had left/);
  assert.equal(job.url, undefined);
  const outputs = (await t.app.inject({ url: `/v1/outputs/${r.json().job_id}.mov` })).statusCode;
  assert.equal(outputs, 404, 'nothing of the stopped render is served');
  await takesASmallJob(t);
});

test('JOB_TIMEOUT_MS=60000: H.265 q100 720p 60 fps 10 s of a sliding noise image is refused (400 too_much_work); the same at the default quality of a flat picture is admitted', async () => {
  const t60 = await startApp({ renderer, ownsRenderer: false, config: { jobTimeoutMs: 60_000 } });
  after(() => t60.close());
  const noise = await upload(t60, noisePng());
  const flat = await upload(t60, flatPng());
  const job = (key: string, quality?: number) => ({
    source: SLIDING,
    assets: { '/img/p.png': key },
    params: {
      width: W,
      height: H,
      fps: 60,
      duration: 10,
      codec: 'h265',
      ...(quality === undefined ? {} : { quality }),
    },
  });
  const refused = await post(t60.app, '/v1/render', job(noise, 100));
  assert.equal(refused.statusCode, 400, refused.body);
  assert.equal(refused.json().code, 'too_much_work');
  assert.match(refused.json().error, /images of detail 1\.00 of 1/);
  const admitted = await post(t60.app, '/v1/render', job(flat));
  assert.equal(admitted.statusCode, 202, admitted.body);
  // only admission is looked at: the admitted job is cancelled rather than rendered for a minute
  const cancel = await t60.app.inject({ method: 'DELETE', url: `/v1/jobs/${admitted.json().job_id}` });
  assert.equal(cancel.statusCode, 200, cancel.body);
});

/** The fake renderer with the real estimate: admission alone, nothing rendered. */
class EstimatingRenderer extends FakeRenderer {
  async estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets'>): Promise<WorkEstimate | null> {
    return estimateWork(job);
  }
}

test('the output budget at its edge: an estimate of exactly OUTPUT_MAX_BYTES is admitted, one byte of budget less refuses it', async () => {
  const file = join(t.dataDir, 'noise-estimate.png');
  writeFileSync(file, noisePng());
  const params = { width: W, height: H, fps: 60, duration: 1, codec: 'prores' as const };
  const bytes = estimateWork({ kind: 'video', source: STILL, params, assets: { '/img/p.png': file } })!.bytes;
  assert.ok(bytes > 100 * MiB, `a second of 720p ProRes HQ noise is estimated at ${bytes} bytes`);
  for (const [outputMaxBytes, status] of [
    [bytes, 202],
    [bytes - 1, 400],
  ] as const) {
    const fake = new EstimatingRenderer();
    fake.behaviour = () => new Promise(() => {}); // never renders: admission only
    const e = await startApp({ renderer: fake, config: { outputMaxBytes } });
    try {
      const key = await upload(e, noisePng());
      const r = await post(e.app, '/v1/render', { source: STILL, assets: { '/img/p.png': key }, params });
      assert.equal(r.statusCode, status, `budget ${outputMaxBytes}: ${r.body}`);
      if (status === 400) assert.equal(r.json().code, 'output_too_large');
    } finally {
      await e.close();
    }
  }
});
