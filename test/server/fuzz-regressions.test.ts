// What the HTTP fuzz found, pinned as plain tests: each once answered 5xx, hung, or lost its CORS headers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, multipart, type TestApp } from '../helpers/app.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: new FakeRenderer() });
});
after(() => t.close());

const png = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a1c0b3d90000000049454e44ae426082',
  'hex',
);
const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([
    p,
    new Promise<never>((_, rej) => setTimeout(() => rej(new Error(`${what}: no answer in ${ms} ms`)), ms)),
  ]);

test('an undecodable URL is a CORS-open 400 ErrorEnvelope', async () => {
  for (const url of ['/%zz', '/v1/jobs/%E0%A4%A', '/v1/outputs/%']) {
    const r = await t.app.inject({ url });
    assert.equal(r.statusCode, 400, url);
    assert.deepEqual(r.json(), { error: 'the request URL is malformed', code: 'bad_url' });
    assert.equal(r.headers['access-control-allow-origin'], '*');
  }
});

test('a truncated or boundary-less multipart body is a 400 bad_multipart, not a 500', async () => {
  const m = multipart([{ name: 'f', filename: 'a.png', data: png }]);
  for (const [ct, body] of [
    [m.headers['content-type'], m.payload.subarray(0, 60)],
    [m.headers['content-type'], m.payload.subarray(0, m.payload.length - 10)],
    ['multipart/form-data; boundary=xyz', 'garbage'],
    ['multipart/form-data', 'x'],
  ] as const) {
    const r = await t.app.inject({ method: 'POST', url: '/v1/assets', headers: { 'content-type': ct }, payload: body });
    assert.equal(r.statusCode, 400, `${ct}: ${r.body}`);
    assert.equal(r.json().code, 'bad_multipart');
  }
});

test('a file part without a file name is skipped without stalling the upload (nor holding an upload slot)', async () => {
  const m = multipart([
    { name: 'nameless', filename: '', data: 'abc' },
    { name: 'f', filename: 'a.png', data: png },
  ]);
  for (let i = 0; i < 6; i++) {
    const r = await within(
      t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers }),
      5000,
      'upload',
    );
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(Object.keys(r.json().assets), ['a.png']);
  }
});
