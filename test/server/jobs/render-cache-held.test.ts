// The render cache under hostile round 3 (issue 32), embedded, with the real renderer:
// - a cache hit's copy is held by its job before the output budget runs: over OUTPUT_MAX_BYTES no job is announced
//   ready with a URL that 404s (row 3; the reproduction: a 627-byte output, a budget of 940 bytes, three identical
//   POSTs);
// - a cache hit gives its client's MAX_QUEUED_JOBS_PER_CLIENT place back (row 11);
// - two in-source paths the page loads as one URL are refused (400 invalid_assets), and the cache keys assets by that
//   URL, so one map is never answered with another's picture (row 13, pixel colours from Chromium).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';
import { multipart, realRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, waitJob } from '../../helpers/job-client.js';
import { encodePng } from '../../../src/render/png.js';

const renderer = realRenderer();
const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
  await renderer.close();
});

async function app(config: Record<string, unknown>): Promise<TestApp> {
  const t = await startApp({ renderer, ownsRenderer: false, config: { renderCache: true, ...config } });
  apps.push(t);
  return t;
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const FLAT = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  rect(width: 600px, height: 400px, fill: #2266aa)\n}\n`;
const PICTURE = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/a.png").fit(cover);\n  compose [bg]\n}\n`;
const FLAT_BODY = { source: FLAT, params: { width: 48 } };

test('OUTPUT_MAX_BYTES under two outputs: a cache hit is ready with a URL that serves its PNG, and what the budget cannot hold is refused, never announced ready', async () => {
  // the output's size on this renderer, then a budget of one and a half of it (627 and 940 bytes in the report)
  const probe = await app({});
  const size = (await waitJob(probe.app, (await post(probe.app, '/v1/frame', FLAT_BODY)).json().job_id)).json();
  const bytes = (await probe.app.inject({ url: size.url })).rawPayload.length;
  const budget = Math.floor(bytes * 1.5);
  const t = await app({ outputMaxBytes: budget });
  const answers: { status: number; body: Record<string, unknown> }[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await post(t.app, '/v1/frame', FLAT_BODY);
    if (r.statusCode !== 202) {
      answers.push({ status: r.statusCode, body: r.json() });
      continue;
    }
    answers.push({ status: 202, body: (await waitJob(t.app, r.json().job_id)).json() });
  }
  const ready = answers.filter((a) => a.body.status === 'ready').map((a) => a.body);
  let first: string | undefined;
  for (const job of ready) {
    const out = await t.app.inject({ url: job.url as string });
    assert.equal(out.statusCode, 200, `${job.url} of a ready job serves`);
    assert.equal(out.headers['content-type'], 'image/png');
    assert.equal(out.rawPayload.length, bytes);
    first ??= sha(out.rawPayload);
    assert.equal(sha(out.rawPayload), first, 'the same picture');
  }
  assert.equal(ready.length, 2, JSON.stringify(answers));
  assert.equal(ready[1]!.cached, true, 'the second is a cache hit');
  // both outputs are held by ready jobs younger than 24 h: the third is refused while the budget is full
  assert.equal(answers[2]!.status, 503, JSON.stringify(answers[2]));
  assert.equal(answers[2]!.body.code, 'storage_full');
});

test('MAX_QUEUED_JOBS_PER_CLIENT=2: ready, cached, cached, then a new job is still 202 (a hit gives its place back)', async () => {
  const t = await app({ maxQueuedJobsPerClient: 2 });
  const body = { source: FLAT, params: { width: 40 } };
  const first = await post(t.app, '/v1/frame', body);
  assert.equal(first.statusCode, 202);
  assert.equal((await waitJob(t.app, first.json().job_id)).json().status, 'ready');
  for (let i = 0; i < 2; i++) {
    const hit = await post(t.app, '/v1/frame', body);
    assert.equal(hit.statusCode, 202, hit.body);
    const job = (await waitJob(t.app, hit.json().job_id)).json();
    assert.equal(job.cached, true);
  }
  const fresh = await post(t.app, '/v1/frame', { source: FLAT, params: { width: 41 } });
  assert.equal(fresh.statusCode, 202, fresh.body);
  assert.equal((await waitJob(t.app, fresh.json().job_id)).json().status, 'ready');
});

const solid = (rgb: [number, number, number]) => {
  const px = new Uint8Array(8 * 8 * 4);
  for (let i = 0; i < px.length; i += 4) px.set([...rgb, 255], i);
  return encodePng(px, 8, 8);
};

async function upload(t: TestApp, png: Buffer): Promise<string> {
  const r = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'a.png', type: 'image/png', data: png }]),
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets['a.png'];
}

/** The frame of PICTURE with this asset map: whether it was cached, and its centre pixel. */
async function picture(t: TestApp, assets: Record<string, string>) {
  const r = await post(t.app, '/v1/frame', { source: PICTURE, params: { width: 32 }, assets });
  assert.equal(r.statusCode, 202, r.body);
  const job = (await waitJob(t.app, r.json().job_id)).json();
  assert.equal(job.status, 'ready', JSON.stringify(job));
  const png = PNG.sync.read((await t.app.inject({ url: job.url })).rawPayload);
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  return { cached: job.cached === true, rgb: [...png.data.subarray(i, i + 3)] };
}

const isRed = ([r, g, b]: number[]) => r! > 200 && g! < 60 && b! < 60;
const isBlue = ([r, g, b]: number[]) => b! > 200 && r! < 60 && g! < 60;

test('"/img/a.png" and "/img/./a.png" load one URL: a map naming both is 400 invalid_assets in either order, and no map is answered with another\'s picture', async () => {
  const t = await app({});
  const RED = await upload(t, solid([255, 0, 0]));
  const BLUE = await upload(t, solid([0, 0, 255]));
  for (const assets of [
    { '/img/a.png': RED, '/img/./a.png': BLUE },
    { '/img/./a.png': BLUE, '/img/a.png': RED },
    { 'img/a.png': RED, '/img/%61.png': RED },
  ]) {
    const r = await post(t.app, '/v1/frame', { source: PICTURE, params: { width: 32 }, assets });
    assert.equal(r.statusCode, 400, `${JSON.stringify(assets)}: ${r.body}`);
    assert.equal(r.json().code, 'invalid_assets');
    assert.match(r.json().error, /name one image/);
  }
  const red = await picture(t, { '/img/a.png': RED });
  assert.ok(isRed(red.rgb), `red: ${red.rgb}`);
  const blue = await picture(t, { '/img/./a.png': BLUE });
  assert.equal(blue.cached, false, 'another picture is not the cached red one');
  assert.ok(isBlue(blue.rgb), `blue: ${blue.rgb}`);
  // one URL with the same bytes is one input, whichever way the path is spelt: each colour from its own render
  const again = await picture(t, { '/img/./a.png': RED });
  assert.equal(again.cached, true);
  assert.ok(isRed(again.rgb), `red again: ${again.rgb}`);
  const blueAgain = await picture(t, { 'img/a.png': BLUE });
  assert.equal(blueAgain.cached, true);
  assert.ok(isBlue(blueAgain.rgb), `blue again: ${blueAgain.rgb}`);
});
