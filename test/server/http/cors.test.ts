// Fully open CORS on every answer: successes, 400s, 404s, 500s, HEAD, the docs page and OPTIONS preflights.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import { startApp, FakeRenderer, JobFailure, multipart, type TestApp } from '../../helpers/app.js';
import { post, runJob } from '../../helpers/job-client.js';
import { encodePng } from '../../../src/render/png.js';
import { CODE } from '../../../src/contract/error-codes.js';

let t: TestApp;
const fake = new FakeRenderer();
before(async () => {
  t = await startApp({ renderer: fake });
});
after(() => t.close());

function assertCors(r: LightMyRequestResponse, what: string) {
  for (const h of [
    'access-control-allow-origin',
    'access-control-allow-headers',
    'access-control-allow-methods',
    'access-control-expose-headers',
  ]) {
    // allow-headers names authorization beside `*`: under the Fetch standard `*` does not cover it
    const want = h === 'access-control-allow-headers' ? '*, authorization' : '*';
    assert.equal(r.headers[h], want, `${what}: ${h} = ${r.headers[h]} (status ${r.statusCode})`);
  }
}

test('every route and every status carries the four CORS headers = *', async () => {
  const ready = (await runJob(t.app, '/v1/frame', { source: 'x' })).json();
  fake.behaviour = () => {
    throw new JobFailure('render failed: x', CODE.page_failed);
  };
  const failed = await runJob(t.app, '/v1/frame', { source: 'x' });
  fake.behaviour = null;
  const png = encodePng(new Uint8Array(16).fill(255), 2, 2);
  const up = multipart([{ name: 'f', filename: 'a.png', data: png }]);
  const cases: [string, LightMyRequestResponse, number][] = [
    ['POST /v1/render 202', await post(t.app, '/v1/render', { source: 'x' }), 202],
    ['POST /v1/render 400', await post(t.app, '/v1/render', '{'), 400],
    [
      'POST /v1/render 400 body_too_large',
      await post(t.app, '/v1/render', JSON.stringify({ source: 'x'.repeat(1_100_000) })),
      400,
    ],
    ['POST /v1/frame 202', await post(t.app, '/v1/frame', { source: 'x' }), 202],
    ['POST /v1/frame 400', await post(t.app, '/v1/frame', {}), 400],
    ['GET job 200', await t.app.inject({ url: `/v1/jobs/${ready.job_id}` }), 200],
    ['GET job 500', failed, 500],
    ['GET job 404', await t.app.inject({ url: '/v1/jobs/nope' }), 404],
    ['GET output 200', await t.app.inject({ url: ready.url }), 200],
    ['GET output 206', await t.app.inject({ url: ready.url, headers: { range: 'bytes=0-3' } }), 206],
    ['GET output 416', await t.app.inject({ url: ready.url, headers: { range: 'bytes=99999999-' } }), 416],
    ['HEAD output 200', await t.app.inject({ method: 'HEAD', url: ready.url }), 200],
    ['GET output 404', await t.app.inject({ url: '/v1/outputs/nope.png' }), 404],
    ['GET /healthz', await t.app.inject({ url: '/healthz' }), 200],
    ['GET /openapi.json', await t.app.inject({ url: '/openapi.json' }), 200],
    ['GET /docs', await t.app.inject({ url: '/docs' }), 200],
    ['GET /test', await t.app.inject({ url: '/test' }), 200],
    ['POST /v1/check 200', await post(t.app, '/v1/check', { source: 'runner "0.0.3";' }), 200],
    ['POST /v1/check 400', await post(t.app, '/v1/check', {}), 400],
    [
      'POST /v1/assets 200',
      await t.app.inject({ method: 'POST', url: '/v1/assets', payload: up.payload, headers: up.headers }),
      200,
    ],
    ['POST /v1/assets 400', await t.app.inject({ method: 'POST', url: '/v1/assets' }), 400],
    ['GET unknown route 404', await t.app.inject({ url: '/nope' }), 404],
    ['DELETE /v1/render 404', await t.app.inject({ method: 'DELETE', url: '/v1/render' }), 404],
    // answered before routing (frameworkErrors)
    ['GET undecodable URL 400', await t.app.inject({ url: '/v1/jobs/%zz' }), 400],
    [
      'GET path parameter over the length limit 404',
      await t.app.inject({ url: `/v1/outputs/${'a'.repeat(5000)}.png` }),
      404,
    ],
  ];
  for (const [what, r, status] of cases) {
    assert.equal(r.statusCode, status, `${what}: ${r.body.slice(0, 120)}`);
    assertCors(r, what);
  }
});

test('OPTIONS preflights answer 204 with the CORS headers on every path, known or not', async () => {
  for (const url of [
    '/v1/render',
    '/v1/frame',
    '/v1/jobs/00000000-0000-4000-8000-000000000000',
    '/v1/outputs/x.png',
    '/healthz',
    '/openapi.json',
    '/v1/check',
    '/v1/assets',
    '/test',
    '/anything',
  ]) {
    const r = await t.app.inject({
      method: 'OPTIONS',
      url,
      headers: {
        origin: 'https://example.com',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-custom',
      },
    });
    assert.equal(r.statusCode, 204, url);
    assertCors(r, `OPTIONS ${url}`);
    const plain = await t.app.inject({ method: 'OPTIONS', url });
    assert.ok(plain.statusCode < 500, url);
    assertCors(plain, `OPTIONS ${url} (no preflight headers)`);
  }
});
