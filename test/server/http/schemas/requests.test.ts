// POST /v1/render and /v1/frame: every 400 rule of service.md "Requests", at and past its edge, and the 202 shape.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { embeddedLine, startApp, FakeRenderer, UUID_V4, type TestApp } from '../../../helpers/app.js';
import { post } from '../../../helpers/job-client.js';
import { until } from '../../../helpers/until.js';

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';

async function expect400(
  url: string,
  payload: unknown,
  code: string,
  error?: string | RegExp,
  headers?: Record<string, string>,
) {
  const r = await t.app.inject({
    method: 'POST',
    url,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: headers ?? { 'content-type': 'application/json' },
  });
  assert.equal(
    r.statusCode,
    400,
    `${url} ${JSON.stringify(payload).slice(0, 80)} -> ${r.statusCode} ${r.body.slice(0, 200)}`,
  );
  const body = r.json();
  assert.deepEqual(Object.keys(body).sort(), ['code', 'error']);
  assert.equal(body.code, code, r.body);
  assert.equal(typeof body.error, 'string');
  if (typeof error === 'string') assert.equal(body.error, error);
  else if (error) assert.match(body.error, error);
  return body;
}

async function expect202(url: string, payload: unknown, headers?: Record<string, string>) {
  const r = await t.app.inject({
    method: 'POST',
    url,
    payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
    headers: headers ?? { 'content-type': 'application/json' },
  });
  assert.equal(r.statusCode, 202, `${url} -> ${r.statusCode} ${r.body.slice(0, 200)}`);
  return r.json();
}

for (const [url, kind] of [
  ['/v1/render', 'video'],
  ['/v1/frame', 'frame'],
] as const) {
  test(`${url}: 202 EnqueueResponse with a UUID v4 and kind ${kind}`, async () => {
    const body = await expect202(url, { source: SRC });
    assert.deepEqual(Object.keys(body).sort(), ['job_id', 'kind', 'status']);
    assert.match(body.job_id, UUID_V4);
    assert.equal(body.status, 'pending');
    assert.equal(body.kind, kind);
    const again = await expect202(url, { source: SRC });
    assert.notEqual(again.job_id, body.job_id);
  });

  test(`${url}: JSON is parsed whatever the content-type`, async () => {
    for (const ct of [
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/octet-stream',
      'application/json; charset=utf-8',
      'weird/type',
      '',
      ';;;',
      'json',
    ]) {
      await expect202(url, { source: SRC }, { 'content-type': ct });
    }
    const r = await t.app.inject({ method: 'POST', url, payload: JSON.stringify({ source: SRC }) });
    assert.equal(r.statusCode, 202);
  });

  test(`${url}: bad_json for malformed JSON and for JSON that is not an object`, async () => {
    await expect400(url, '{"source": "x"', 'bad_json');
    await expect400(url, 'source=abc', 'bad_json', undefined, { 'content-type': 'application/x-www-form-urlencoded' });
    for (const v of ['[]', '"text"', '42', 'null', 'true']) await expect400(url, v, 'bad_json');
    const empty = await t.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    assert.equal(empty.statusCode, 400);
    assert.equal(empty.json().code, 'bad_json');
    const none = await t.app.inject({ method: 'POST', url });
    assert.equal(none.statusCode, 400);
    assert.equal(none.json().code, 'bad_json');
  });

  test(`${url}: missing_source when source is missing, not a string or empty`, async () => {
    for (const body of [
      {},
      { source: null },
      { source: 5 },
      { source: ['x'] },
      { source: {} },
      { source: '' },
      { params: {} },
    ]) {
      await expect400(url, body, 'missing_source');
    }
  });

  test(`${url}: source of 65536 characters is accepted, 65537 is source_too_large`, async () => {
    await expect202(url, { source: 'x'.repeat(65536) });
    // characters, not bytes: 65536 two-byte characters are still accepted
    await expect202(url, { source: 'é'.repeat(65536) });
    await expect400(url, { source: 'x'.repeat(65537) }, 'source_too_large', 'source is longer than 65536 characters');
  });

  test(`${url}: a body of exactly 1 MiB is accepted, one byte more is 400 body_too_large (not 413)`, async () => {
    const base = JSON.stringify({ source: SRC, pad: '' });
    const exact = JSON.stringify({ source: SRC, pad: 'p'.repeat(1024 * 1024 - base.length) });
    assert.equal(Buffer.byteLength(exact), 1024 * 1024);
    await expect202(url, exact);
    const over = JSON.stringify({ source: SRC, pad: 'p'.repeat(1024 * 1024 - base.length + 1) });
    await expect400(url, over, 'body_too_large');
    await expect400(url, JSON.stringify({ source: 'x'.repeat(2 * 1024 * 1024) }), 'body_too_large');
  });

  test(`${url}: unknown fields in the body are ignored; an unknown params key is refused, naming it`, async () => {
    await expect202(url, { source: SRC, future: { a: 1 }, params: { width: 64 } });
    const r = await post(t.app, url, { source: SRC, params: { someday: true, widht: 64 } });
    assert.equal(r.statusCode, 400);
    assert.equal(r.json().code, 'invalid_params');
    assert.match(
      r.json().error,
      /^params\.someday is not a parameter of this kind; params\.widht is not a parameter of this kind; did you mean 'width'\? \(known: /,
    );
  });

  test(`${url}: params must be an object`, async () => {
    for (const params of [null, 5, 'x', [1]])
      await expect400(url, { source: SRC, params }, 'invalid_params', 'params must be an object');
  });

  test(`${url}: width 16..3840 and height 16..2160, integers`, async () => {
    for (const width of [16, 3840]) await expect202(url, { source: SRC, params: { width } });
    for (const height of [16, 2160]) await expect202(url, { source: SRC, params: { height } });
    for (const width of [15, 3841, 100.5, '100', null, true])
      await expect400(
        url,
        { source: SRC, params: { width } },
        'invalid_params',
        'params.width must be an integer from 16 to 3840',
      );
    for (const height of [15, 2161, 99.9, '100'])
      await expect400(
        url,
        { source: SRC, params: { height } },
        'invalid_params',
        'params.height must be an integer from 16 to 2160',
      );
  });

  test(`${url}: assets must map paths to asset keys; a well-formed unknown key is unknown_asset`, async () => {
    for (const assets of [5, 'x', [1], null]) await expect400(url, { source: SRC, assets }, 'invalid_assets');
    await expect400(url, { source: SRC, assets: { '/img/a.jpg': 'not-a-key' } }, 'invalid_assets');
    await expect400(url, { source: SRC, assets: { '/img/a.jpg': 7 } }, 'invalid_assets');
    await expect400(
      url,
      { source: SRC, assets: { '/img/a.jpg': 'asset_0123456789abcdef0123456789abcdef' } },
      'unknown_asset',
      /asset_0123456789abcdef0123456789abcdef/,
    );
    await expect202(url, { source: SRC, assets: {} });
  });

  test(`${url}: rules apply in order: source before params before assets`, async () => {
    await expect400(url, { params: { width: 1 }, assets: 5 }, 'missing_source');
    await expect400(url, { source: 'x'.repeat(65537), params: { width: 1 } }, 'source_too_large');
    await expect400(url, { source: SRC, params: { width: 1 }, assets: 5 }, 'invalid_params');
  });
}

test('/v1/render: fps is an integer from 1 to 60', async () => {
  for (const fps of [1, 60, 30]) await expect202('/v1/render', { source: SRC, params: { fps } });
  for (const fps of [0, 61, -1, 29.97, '30', null])
    await expect400(
      '/v1/render',
      { source: SRC, params: { fps } },
      'invalid_params',
      'params.fps must be an integer from 1 to 60',
    );
});

test('/v1/render: duration is a number from 0.1 to 300', async () => {
  for (const duration of [0.1, 300, 2.5]) await expect202('/v1/render', { source: SRC, params: { duration } });
  for (const duration of [0.09, 300.001, 0, -1, '2'])
    await expect400(
      '/v1/render',
      { source: SRC, params: { duration } },
      'invalid_params',
      'params.duration must be a number from 0.1 to 300',
    );
});

test('/v1/frame: at is a number of 0 or more', async () => {
  for (const at of [0, 0.5, 1000]) await expect202('/v1/frame', { source: SRC, params: { at } });
  for (const at of [-0.001, -1, '1', null])
    await expect400(
      '/v1/frame',
      { source: SRC, params: { at } },
      'invalid_params',
      'params.at must be a number of 0 or more',
    );
});

test("/v1/frame refuses a video's params and /v1/render a frame's at (keys the kind does not have)", async () => {
  for (const [url, params] of [
    ['/v1/frame', { fps: 999 }],
    ['/v1/render', { at: -5 }],
  ] as const) {
    const r = await post(t.app, url, { source: SRC, params });
    assert.equal(r.statusCode, 400, url);
    assert.equal(r.json().code, 'invalid_params');
    assert.match(r.json().error, /is not a parameter of this kind/);
  }
});

test('POST answers at once: the render has not run when the 202 arrives', async () => {
  // only this test's job is held (one of an earlier test still in line renders as it would have), and the hold stays
  // until its render has reached it: taken away before that, the render would run unheld and nothing be released
  let release: (() => void) | undefined;
  const held = `${SRC}// held`;
  fake.behaviour = async (job) => {
    if (job.source === held) await new Promise<void>((r) => (release = r));
  };
  const r = await post(t.app, '/v1/frame', { source: held });
  assert.equal(r.statusCode, 202);
  const job = await t.app.inject({ url: `/v1/jobs/${r.json().job_id}` });
  assert.equal(job.json().status, 'pending');
  await until('the held render reached', () => release !== undefined, 10_000);
  fake.behaviour = null;
  release!();
  await embeddedLine(t.app).onIdle();
});
