// A render worker killed (SIGKILL) in the middle of a chunk: BullMQ's stalled-job check gives the chunk to the other
// worker (STALLED_INTERVAL_MS, short here), the job completes and the MP4 has every frame (decoded and counted).
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
import { probe } from '../../../src/render/ffmpeg/probe.js';

let redis: TestRedis;
let dataDir: string;
const procs: StartedProcess[] = [];

before(async () => {
  redis = await TestRedis.start();
  dataDir = await mkdtemp(join(tmpdir(), 'cmr-kill-'));
  const env = { REDIS_URL: redis.url, DATA_DIR: dataDir, STALLED_INTERVAL_MS: '2000' };
  procs.push(
    ...(await Promise.all([
      startProcess('api', { ...env, RENDER_CONCURRENCY: '0' }),
      startProcess('worker', env),
      startProcess('worker', env),
    ])),
  );
});
after(async () => {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await rm(dataDir, { recursive: true, force: true });
});

const started = (w: StartedProcess, id: string) =>
  w.lines.filter((l) => l.event === 'render_started' && l.job_id === id).map((l) => String(l.part));
const finished = (w: StartedProcess, id: string) =>
  w.lines.filter((l) => l.event === 'chunk_done' && l.job_id === id).map((l) => String(l.chunk));

test('SIGKILL of a worker during a chunk: the chunk is rendered again elsewhere, every frame is there', async () => {
  const [api, w1, w2] = procs as [StartedProcess, StartedProcess, StartedProcess];
  // 960x540 so that one chunk takes long enough to be cut in the middle
  const posted = await postJson(api.url!, '/v1/render', {
    source: LONG_SLIDE,
    params: { fps: 13, width: 960, height: 540 },
  });
  assert.equal(posted.status, 202, JSON.stringify(posted.json));
  const id = posted.json.job_id as string;
  // wait until a worker has a chunk in hand that it has not finished, and its progress shows on the API
  let victim: StartedProcess | undefined;
  let part = '';
  let view: { progress?: number; status: string } | undefined;
  await until(
    () => `a worker with a chunk in hand (last view: ${JSON.stringify(view)})`,
    async () => {
      view = (await (await fetch(`${api.url}/v1/jobs/${id}`)).json()) as NonNullable<typeof view>;
      if (view.status !== 'pending') return true;
      for (const w of [w1, w2]) {
        const open = started(w, id).filter((p) => !finished(w, id).includes(p));
        if (open.length && (view.progress ?? 0) > 0) [victim, part] = [w, open[0]!];
      }
      return victim !== undefined;
    },
    60_000,
  );
  assert.equal(view?.status, 'pending', 'the job ended before a worker could be killed');
  assert.ok(victim);
  victim.proc.kill('SIGKILL');
  const survivor = victim === w1 ? w2 : w1;
  const done = await pollJob(api.url!, id, 150_000);
  assert.equal(done.status, 'ready', JSON.stringify(done));
  assert.ok(!finished(victim, id).includes(part), `chunk ${part} was cut in the middle`);
  assert.ok(finished(survivor, id).includes(part), `chunk ${part} was rendered again by the other worker`);
  const p = await probe(join(dataDir, 'outputs', `${id}.mp4`));
  assert.equal(p.frames, 130, 'every frame decoded');
  assert.ok(Math.abs(p.duration - 10) < 0.01, `duration ${p.duration}`);
});
