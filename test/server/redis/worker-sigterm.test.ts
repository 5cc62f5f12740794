// A render worker stopped with SIGTERM past its grace (SHUTDOWN_GRACE_MS): the chunk it was rendering is handed back
// to the queue at once (not failed, not left to the stalled check), the worker exits 0, and another worker finishes
// the video. Real Redis, real Chromium and ffmpeg in child processes.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestRedis } from '../../helpers/redis.js';
import { startProcess, type StartedProcess } from '../../helpers/started-process.js';
import { postJson, pollJob } from '../../helpers/job-client.js';
import { LONG_SLIDE } from '../../helpers/video.js';
import { until } from '../../helpers/until.js';

const procs: StartedProcess[] = [];
let redis: TestRedis | undefined;
let dataDir = '';
after(async () => {
  await Promise.all(procs.map((p) => p.stop('SIGKILL')));
  await redis?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

test(
  'SIGTERM past the grace hands the chunk in hand back; another worker finishes the video',
  { timeout: 240_000 },
  async () => {
    redis = await TestRedis.start();
    dataDir = await mkdtemp(join(tmpdir(), 'cmr-worker-term-'));
    // a long stalled interval: if the chunk came back only through the stalled check, the test would run out first
    const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, STALLED_INTERVAL_MS: '600000' };
    const api = await startProcess('api', { ...env, RENDER_CONCURRENCY: '0' });
    procs.push(api);
    const first = await startProcess('worker', { ...env, SHUTDOWN_GRACE_MS: '200' });
    procs.push(first);

    // 4 s at 30 fps: two chunks of 60 frames, rendered one after the other by the one worker
    const posted = await postJson(api.url!, '/v1/render', {
      source: LONG_SLIDE,
      params: { fps: 30, duration: 4, width: 640, height: 360 },
    });
    assert.equal(posted.status, 202);
    const id = posted.json.job_id as string;
    await until('the first chunk to start', () => first.lines.some((l) => l.event === 'render_started'), 60_000);

    const exited = new Promise<number | null>((r) => first.proc.once('exit', (code) => r(code)));
    first.proc.kill('SIGTERM');
    assert.equal(await exited, 0, 'the worker exits 0');
    assert.ok(
      first.lines.some((l) => l.event === 'render_handed_back' && l.job_id === id),
      'the chunk in hand went back to the queue',
    );
    assert.ok(!first.lines.some((l) => l.event === 'chunk_done'), 'it had not finished a chunk');
    const meanwhile = await (await fetch(`${api.url}/v1/jobs/${id}`)).json();
    assert.equal(meanwhile.status, 'pending', 'the job is not failed');

    const second = await startProcess('worker', env);
    procs.push(second);
    const done = await pollJob(api.url!, id, 180_000);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.equal(second.lines.filter((l) => l.event === 'chunk_done').length, 2, 'both chunks by the second worker');
  },
);
