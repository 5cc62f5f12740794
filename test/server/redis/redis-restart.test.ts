// Redis stopped and started again while a job renders (`npm start` rendering beside its API, and a worker): the
// processes reconnect and the job ends, ready or in error with a clear message, within a bounded wait; never stuck
// pending.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { postJson, pollJob } from '../../helpers/job-client.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { until } from '../../helpers/until.js';

let redis: TestRedis;
let dataDir: string;
const procs: StartedProcess[] = [];

before(async () => {
  // appendonly: what Redis held survives its restart, as a deployed Redis's would
  redis = await TestRedis.start({ persist: true });
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-restart-'));
  const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, STALLED_INTERVAL_MS: '2000' };
  procs.push(...(await Promise.all([startProcess('api', env), startProcess('worker', env)])));
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

test('Redis restarted during a job: the job ends (ready or a clear error), never stuck pending', async (t) => {
  const api = procs[0]!;
  const posted = await postJson(api.url!, '/v1/render', {
    source: LONG_SLIDE,
    params: { fps: 13, width: 640, height: 360 },
  });
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const id = posted.json.job_id as string;
  await pollJob(api.url!, id, 60_000, async (v) => {
    if (v.progress > 0) throw new Stop();
  }).catch((e) => {
    if (!(e instanceof Stop)) throw e;
  });
  await redis.stop();
  // down for as long as it takes the API to notice (its /readyz says 503 without Redis), not for a guessed time
  await until('the API to see Redis gone', async () => (await fetch(`${api.url!}/readyz`)).status === 503, 30_000);
  await redis.start();
  const done = await pollJob(api.url!, id, 150_000);
  assert.ok(['ready', 'error'].includes(done.status), JSON.stringify(done));
  t.diagnostic(`after the restart the job ended ${done.status}${done.message ? `: ${done.message}` : ''}`);
  if (done.status === 'error') assert.match(done.message, /^render /, JSON.stringify(done));
  // and the service takes new work after the restart
  const again = await postJson(api.url!, '/v1/frame', { source: LONG_SLIDE, params: { width: 320, height: 180 } });
  assert.equal(again.status, 202, JSON.stringify(again.json));
  assert.equal((await pollJob(api.url!, again.json.job_id, 60_000)).status, 'ready');
});

class Stop extends Error {}
