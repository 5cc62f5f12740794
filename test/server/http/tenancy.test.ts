// Keys are tenants (src/server/http/tenancy.ts) beyond jobs: with API_KEYS an uploaded asset is its key's alone
// (another key: 404 on GET /v1/assets/{key}, 400 invalid_assets when a job names it), an output that has an owner is
// answered `cache-control: private` with `vary: authorization` (one without an owner stays public), and the render
// cache is keyed by owner, so another key's identical request renders anew instead of coming back `cached: true`.
// Jobs are mesh and vectorize ones, made for real by the export worker (no browser).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { exportRenderer, multipart, startApp, type TestApp } from '../../helpers/app.js';
import { waitJob } from '../../helpers/job-client.js';
import { encodePng } from '../../../src/render/png.js';
import type { Config } from '../../../src/config/settings.js';

const apps: TestApp[] = [];
after(async () => {
  for (const a of apps) await a.close();
});
async function app(config: Partial<Config>): Promise<FastifyInstance> {
  const t = await startApp({ renderer: exportRenderer(), config });
  apps.push(t);
  return t.app;
}

const KEYS = { apiKeys: 'key-a, key-b' };
const as = (key?: string): Record<string, string> => (key ? { authorization: `Bearer ${key}` } : {});
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="6"/></svg>';

/** A small black square on white: a PNG the tracer reads. */
function drawing(): Buffer {
  const w = 40;
  const px = new Uint8Array(w * w * 4).fill(255);
  for (let y = 10; y < 30; y++) for (let x = 10; x < 30; x++) px.fill(0, (y * w + x) * 4, (y * w + x) * 4 + 3);
  return encodePng(px, w, w);
}

function postJob(a: FastifyInstance, url: string, body: unknown, key?: string) {
  return a.inject({
    method: 'POST',
    url,
    payload: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...as(key) },
  });
}

async function upload(a: FastifyInstance, key?: string): Promise<string> {
  const up = multipart([{ name: 'f', filename: 'd.png', type: 'image/png', data: drawing() }]);
  const r = await a.inject({
    method: 'POST',
    url: '/v1/assets',
    payload: up.payload,
    headers: { ...up.headers, ...as(key) },
  });
  assert.equal(r.statusCode, 200, r.body);
  return r.json().assets['d.png'];
}

async function meshJob(a: FastifyInstance, key?: string) {
  const r = await postJob(a, '/v1/mesh', { source: SVG }, key);
  assert.equal(r.statusCode, 202, r.body);
  const polled = await waitJob(a, r.json().job_id, { headers: as(key) });
  assert.equal(polled.statusCode, 200, polled.body);
  const job = polled.json() as { status: string; url: string; cached?: boolean };
  assert.equal(job.status, 'ready', JSON.stringify(job));
  return job;
}

test("with API_KEYS an asset is its key's alone: another key reads 404 and its job naming it is 400 invalid_assets", async () => {
  const a = await app({ ...KEYS, apiKeysReads: true });
  const asset = await upload(a, 'key-a');
  const read = (key?: string) => a.inject({ url: `/v1/assets/${asset}`, headers: as(key) });
  assert.equal((await read('key-a')).statusCode, 200);
  const other = await read('key-b');
  assert.equal(other.statusCode, 404);
  assert.deepEqual(other.json(), { error: 'not_found', code: 'not_found' });
  assert.equal((await read()).statusCode, 401);

  const body = { source: '/img/d.png', assets: { '/img/d.png': asset } };
  const theirs = await postJob(a, '/v1/vectorize', body, 'key-b');
  assert.equal(theirs.statusCode, 400, theirs.body);
  assert.equal(theirs.json().code, 'invalid_assets');
  assert.match(theirs.json().error, /assets\["\/img\/d\.png"\].*not an upload of this API key/);
  const picture = await postJob(a, '/v1/frame', { source: 'runner "0.0.3";\n', assets: body.assets }, 'key-b');
  assert.equal(picture.statusCode, 400, picture.body);
  assert.equal(picture.json().code, 'invalid_assets');
  const mine = await postJob(a, '/v1/vectorize', body, 'key-a');
  assert.equal(mine.statusCode, 202, mine.body);
  await waitJob(a, mine.json().job_id);

  // its own upload is another key's to use
  const bs = await upload(a, 'key-b');
  assert.equal((await a.inject({ url: `/v1/assets/${bs}`, headers: as('key-b') })).statusCode, 200);
  assert.equal((await a.inject({ url: `/v1/assets/${bs}`, headers: as('key-a') })).statusCode, 404);
});

test('with API_KEYS_READS off an asset key is still a capability for a request without a key; without API_KEYS all are open', async () => {
  const keyed = await app(KEYS);
  const asset = await upload(keyed, 'key-a');
  assert.equal((await keyed.inject({ url: `/v1/assets/${asset}` })).statusCode, 200);
  assert.equal((await keyed.inject({ url: `/v1/assets/${asset}`, headers: as('key-b') })).statusCode, 404);

  const open = await app({});
  const any = await upload(open);
  const body = { source: '/img/d.png', assets: { '/img/d.png': any } };
  assert.equal((await open.inject({ url: `/v1/assets/${any}` })).statusCode, 200);
  const r = await postJob(open, '/v1/vectorize', body);
  assert.equal(r.statusCode, 202, r.body);
  await waitJob(open, r.json().job_id);
});

test('an output that has an owner is cache-control: private with vary: authorization; one without is public', async () => {
  const a = await app({ ...KEYS, apiKeysReads: true });
  const job = await meshJob(a, 'key-a');
  const get = (key?: string, headers: Record<string, string> = {}) =>
    a.inject({ url: job.url, headers: { ...as(key), ...headers } });
  const own = await get('key-a');
  assert.equal(own.statusCode, 200);
  assert.equal(own.headers['cache-control'], 'private, max-age=86400, immutable');
  assert.match(String(own.headers.vary), /\bauthorization\b/i);
  const again = await get('key-a', { 'if-none-match': String(own.headers.etag) });
  assert.equal(again.statusCode, 304);
  assert.match(String(again.headers.vary), /\bauthorization\b/i);
  const theirs = await get('key-b');
  assert.equal(theirs.statusCode, 404);
  assert.match(String(theirs.headers.vary), /\bauthorization\b/i);
  assert.equal((await get()).statusCode, 401);

  const open = await app({});
  const unowned = await meshJob(open);
  const pub = await open.inject({ url: unowned.url });
  assert.equal(pub.statusCode, 200);
  assert.equal(pub.headers['cache-control'], 'public, max-age=86400, immutable');
  assert.doesNotMatch(String(pub.headers.vary ?? ''), /authorization/i);
});

test("the render cache is keyed by owner: another key's identical request renders anew, the same key's is cached", async () => {
  const a = await app({ ...KEYS, renderCache: true });
  const first = await meshJob(a, 'key-a');
  assert.notEqual(first.cached, true);
  const same = await meshJob(a, 'key-a');
  assert.equal(same.cached, true, 'the same key hits its own entry');
  const other = await meshJob(a, 'key-b');
  assert.notEqual(other.cached, true, "another key's identical request is not answered from key-a's render");
  assert.equal((await meshJob(a, 'key-b')).cached, true, 'and then hits its own');
});
