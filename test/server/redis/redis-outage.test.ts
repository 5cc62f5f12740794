// Redis mode when Redis is gone: an API answers fast and says why. Job routes are 503 redis_unavailable with
// retry-after (commands fail at once while the connection is down, or after 5 s without an answer) instead of
// hanging for the whole outage; /healthz is 503 while Redis is unreachable and 200 once it is back; an API started
// while Redis is unreachable exits with one clear line instead of neither listening nor exiting.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { spawnService } from '../../helpers/service-spawn.js';
import { until } from '../../helpers/until.js';

let redis: TestRedis;
let dataDir: string;
let api: StartedProcess | undefined;

before(async () => {
  redis = await TestRedis.start({ persist: true });
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-outage-'));
});
after(async () => {
  await api?.stop();
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A request that must be answered: a hang fails the test at 8 s instead of waiting for the outage to end. */
async function ask(path: string, init: RequestInit = {}) {
  const r = await fetch(`${api!.url}${path}`, { ...init, signal: AbortSignal.timeout(8_000) });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), text: await r.text() };
}
const FRAME = JSON.stringify({ source: 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n', params: { width: 32 } });
const post = () => ask('/v1/frame', { method: 'POST', headers: { 'content-type': 'application/json' }, body: FRAME });

test('Redis stopped: job routes and /healthz answer 503 redis_unavailable at once; Redis back: 200 and 202 again', async () => {
  api = await startProcess('api', { REDIS_URL: redis.url, DATA_DIR: dataDir, RENDER_CONCURRENCY: '0' });
  const created = await post();
  assert.equal(created.status, 202, created.text);
  const id = JSON.parse(created.text).job_id as string;

  await redis.stop();
  for (const a of [await ask(`/v1/jobs/${id}`), await post(), await ask('/healthz')]) {
    assert.equal(a.status, 503, a.text);
    assert.equal(JSON.parse(a.text).code, 'redis_unavailable');
    assert.ok(Number(a.retryAfter) >= 1);
  }

  await redis.start();
  await until('/healthz to come back with Redis', async () => (await ask('/healthz')).status === 200, {
    timeoutMs: 30_000,
    pollMs: 200,
  });
  assert.equal((await ask(`/v1/jobs/${id}`)).status, 200, 'the record survived (appendonly)');
  assert.equal((await post()).status, 202);
});

test('an API started while Redis is unreachable exits 1 with one clear line', async () => {
  await redis.stop();
  const child = spawnService('api', {
    REDIS_URL: redis.url,
    DATA_DIR: dataDir,
    RENDER_CONCURRENCY: '0',
    PORT: '0',
    LOG_LEVEL: 'info',
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const [code] = (await once(child, 'exit')) as [number | null];
  assert.equal(code, 1, out);
  assert.match(
    out,
    /"level":60[^\n]*"msg":"cmrender could not start: Redis at redis:\/\/127\.0\.0\.1:\d+ is not reachable/,
  );
  assert.doesNotMatch(out, /cmrender listening|Unhandled error event/);
  await redis.start();
});
