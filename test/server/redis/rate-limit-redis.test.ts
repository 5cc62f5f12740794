// POST rate limits in Redis mode: the counts live in Redis, so two API processes on one Redis share each client's
// budget: the POSTs past the limit are 429 with Retry-After and the IETF RateLimit fields, whichever API they reach.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { FastifyInstance } from 'fastify';
import { TestRedis } from '../../helpers/redis.js';
import { startApp, FakeRenderer, type TestApp } from '../../helpers/app.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
let redis: TestRedis;
const apps: TestApp[] = [];
before(async () => {
  redis = await TestRedis.start();
});
after(async () => {
  for (const a of apps) await a.close();
  await redis?.close();
});

const frame = (a: FastifyInstance, key: string) =>
  a.inject({
    method: 'POST',
    url: '/v1/frame',
    payload: JSON.stringify({ source: SRC }),
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
  });

test('two APIs on one Redis share a key budget of 3: the 4th POST is 429 on either, another key still passes', async () => {
  const config = { redisUrl: redis.url, apiKeys: 'ci-key,other-key', rateLimitPosts: 3, rateLimitWindowMs: 60_000 };
  for (let i = 0; i < 2; i++) apps.push(await startApp({ renderer: new FakeRenderer(), config }));
  const [a, b] = apps.map((t) => t.app) as [FastifyInstance, FastifyInstance];

  const seen = [];
  for (const api of [a, b, a]) {
    const r = await frame(api, 'ci-key');
    assert.equal(r.statusCode, 202, r.body);
    seen.push(String(r.headers.ratelimit));
  }
  assert.deepEqual(
    seen.map((h) => /r=(\d+)/.exec(h)?.[1]),
    ['2', '1', '0'],
    'one budget across both APIs',
  );
  for (const api of [b, a]) {
    const over = await frame(api, 'ci-key');
    assert.equal(over.statusCode, 429);
    assert.equal(over.json().code, 'rate_limited');
    assert.ok(Number(over.headers['retry-after']) >= 1);
    assert.equal(over.headers['ratelimit-policy'], '"posts";q=3;w=60');
    assert.match(String(over.headers.ratelimit), /^"posts";r=0;t=\d+$/);
  }
  assert.equal((await frame(b, 'other-key')).statusCode, 202);
});
