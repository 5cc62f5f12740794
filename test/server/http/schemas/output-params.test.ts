// Issue 27's params at the door: codec, quality, from/to, transparent (video), format, quality, transparent (frame),
// loop and colors (GIF), each at and just past its edge; 400 no_alpha for transparency without alpha; and the
// output's name and MIME type following the codec or the format.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, type TestApp } from '../../../helpers/app.js';
import { waitJob } from '../../../helpers/job-client.js';
import { QUALITY, GIF_COLORS, GIF_LOOP, VIDEO_CODECS } from '../../../../src/contract/outputs.js';

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';

async function send(url: string, params: unknown) {
  const r = await t.app.inject({
    method: 'POST',
    url,
    payload: JSON.stringify({ source: SRC, params }),
    headers: { 'content-type': 'application/json' },
  });
  return { status: r.statusCode, body: r.json() as Record<string, string> };
}
async function ok(url: string, params: unknown) {
  const r = await send(url, params);
  assert.equal(r.status, 202, `${url} ${JSON.stringify(params)} -> ${r.status} ${JSON.stringify(r.body)}`);
  return r.body;
}
async function refused(url: string, params: unknown, code: string, error?: RegExp) {
  const r = await send(url, params);
  assert.equal(r.status, 400, `${url} ${JSON.stringify(params)} -> ${r.status}`);
  assert.deepEqual(Object.keys(r.body).sort(), ['code', 'error']);
  assert.equal(r.body.code, code, JSON.stringify(r.body));
  if (error) assert.match(r.body.error!, error);
}

test('video codec: each of h264, h265, vp9, av1, prores; anything else is invalid_params naming them', async () => {
  for (const codec of VIDEO_CODECS) await ok('/v1/render', { codec });
  await refused('/v1/render', { codec: 'vp8' }, 'invalid_params', /params\.codec must be one of h264, h265/);
  await refused('/v1/render', { codec: 264 }, 'invalid_params');
});

test('quality: 0 and 100 pass, -1 and 101 and 50.5 do not (video and jpeg/webp frames)', async () => {
  for (const [url, extra] of [
    ['/v1/render', {}],
    ['/v1/frame', { format: 'jpeg' }],
    ['/v1/frame', { format: 'webp' }],
  ] as const) {
    await ok(url, { ...extra, quality: QUALITY.min });
    await ok(url, { ...extra, quality: QUALITY.max });
    for (const q of [QUALITY.min - 1, QUALITY.max + 1, 50.5])
      await refused(
        url,
        { ...extra, quality: q },
        'invalid_params',
        /params\.quality must be an integer from 0 to 100/,
      );
  }
  await refused('/v1/frame', { quality: 80 }, 'invalid_params', /lossy formats/);
});

test('from/to: 0 and the duration limit pass; to must be after from; negative refused', async () => {
  await ok('/v1/render', { from: 0, to: 300 });
  await ok('/v1/render', { from: 1, to: 1.5 });
  await refused('/v1/render', { from: -0.1 }, 'invalid_params', /params\.from/);
  await refused('/v1/render', { to: 300.1 }, 'invalid_params', /params\.to/);
  await refused('/v1/render', { from: 2, to: 2 }, 'invalid_params', /params\.to must be greater than params\.from/);
  await refused('/v1/render', { from: 2, to: 1 }, 'invalid_params', /greater/);
});

test('transparent: vp9 and prores pass; h264 (the default), h265 and av1 answer 400 no_alpha', async () => {
  await ok('/v1/render', { codec: 'vp9', transparent: true });
  await ok('/v1/render', { codec: 'prores', transparent: true });
  await ok('/v1/render', { transparent: false });
  await refused('/v1/render', { transparent: true }, 'no_alpha', /codec h264 has none/);
  for (const codec of ['h265', 'av1']) await refused('/v1/render', { codec, transparent: true }, 'no_alpha');
  await refused('/v1/render', { codec: 'vp9', transparent: 'yes' }, 'invalid_params', /true or false/);
  await ok('/v1/frame', { transparent: true });
  await ok('/v1/frame', { format: 'webp', transparent: true });
  await refused('/v1/frame', { format: 'jpeg', transparent: true }, 'no_alpha', /jpeg has none/);
  await refused('/v1/frame', { format: 'gif' }, 'invalid_params', /params\.format must be one of png, jpeg, webp/);
});

test('GIF loop 0..65535 and colors 2..256, at and past each edge', async () => {
  for (const loop of [GIF_LOOP.min, GIF_LOOP.max]) await ok('/v1/gif', { loop });
  for (const loop of [GIF_LOOP.min - 1, GIF_LOOP.max + 1, 1.5])
    await refused('/v1/gif', { loop }, 'invalid_params', /params\.loop/);
  for (const colors of [GIF_COLORS.min, GIF_COLORS.max]) await ok('/v1/gif', { colors });
  for (const colors of [GIF_COLORS.min - 1, GIF_COLORS.max + 1])
    await refused('/v1/gif', { colors }, 'invalid_params', /params\.colors must be an integer from 2 to 256/);
});

test('the output follows the codec or format: extension and mime of the ready job, and of the download', async () => {
  const cases = [
    ['/v1/render', {}, 'mp4', 'video/mp4'],
    ['/v1/render', { codec: 'h265' }, 'mp4', 'video/mp4'],
    ['/v1/render', { codec: 'vp9' }, 'webm', 'video/webm'],
    ['/v1/render', { codec: 'av1' }, 'webm', 'video/webm'],
    ['/v1/render', { codec: 'prores' }, 'mov', 'video/quicktime'],
    ['/v1/frame', {}, 'png', 'image/png'],
    ['/v1/frame', { format: 'jpeg' }, 'jpg', 'image/jpeg'],
    ['/v1/frame', { format: 'webp' }, 'webp', 'image/webp'],
  ] as const;
  for (const [url, params, ext, mime] of cases) {
    const { job_id } = await ok(url, params);
    const job = (await waitJob(t.app, job_id!)).json();
    assert.equal(job.status, 'ready', JSON.stringify(job));
    assert.equal(job.url, `/v1/outputs/${job_id}.${ext}`);
    assert.equal(job.mime, mime);
    const dl = await t.app.inject({ url: job.url });
    assert.equal(dl.statusCode, 200);
    assert.equal(dl.headers['content-type'], mime);
  }
});
