// Batches against separate POSTs (`npx tsx bench/batch.ts [--frames 100] [--videos 20] [--modes embedded,redis1,redis2]`;
// `npm run build` first: the service runs as its compiled entry points, as `npm start` and `npm run worker` do):
// examples/title-card.cm rendered for N people, frames at 1280x720 and 3 s 720p videos, once as one POST /v1/batches
// and once as N POSTs of /v1/frame or /v1/render, each timed from the first POST to the last row ended; rows per
// minute. Each run's names differ from every other run's, so no row is answered from the render cache. Modes:
// embedded (one process), redis1 and redis2 (an API that renders nothing and one or two render workers on a
// redis-server started here). Then the archive of the video batch is streamed from the API, its RSS read from /proc
// before, at its highest while streaming (sampled every 20 ms) and after. The machine is whatever runs it: on a
// shared one the figures move with everyone else's load.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startProcess, type StartedProcess } from '../test/helpers/started-process.js';
import { TestRedis } from '../test/helpers/redis.js';
import { ownExamplesDir } from '../test/helpers/shared.js';

const arg = (name: string, d: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1]! : d;
};
const FRAMES = Number(arg('--frames', '100'));
const VIDEOS = Number(arg('--videos', '20'));
const MODES = arg('--modes', 'embedded').split(',');
const source = readFileSync(join(ownExamplesDir, 'title-card.cm'), 'utf8');
const FRAME_PARAMS = { at: 2, width: 1280, height: 720 };
const VIDEO_PARAMS = { duration: 3, width: 1280, height: 720 };

let run = 0;
const people = (n: number) => {
  run++;
  return Array.from({ length: n }, (_, i) => ({ name: `p${i}`, args: { name: `Person ${run}-${i}` } }));
};

async function json(url: string, init?: RequestInit): Promise<any> {
  const r = await fetch(url, init);
  const body = await r.json();
  if (!r.ok && r.status !== 500)
    throw new Error(`${init?.method ?? 'GET'} ${url}: ${r.status} ${JSON.stringify(body)}`);
  return body;
}
const post = (url: string, body: unknown) =>
  json(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Seconds from the batch's POST to its end. */
async function asBatch(
  base: string,
  kind: 'frame' | 'video',
  n: number,
): Promise<{ s: number; id: string; admitS: number }> {
  const t0 = performance.now();
  const b = await post(`${base}/v1/batches`, {
    kind,
    source,
    params: kind === 'frame' ? FRAME_PARAMS : VIDEO_PARAMS,
    rows: people(n),
  });
  // the 202 comes once every row is checked and estimated: admission's own time
  const admitS = (performance.now() - t0) / 1000;
  for (;;) {
    const v = await json(`${base}/v1/batches/${b.batch_id}`);
    if (v.status !== 'pending') {
      if (v.counts.error) throw new Error(`batch: ${JSON.stringify(v.counts)}`);
      return { s: (performance.now() - t0) / 1000, id: b.batch_id, admitS };
    }
    await pause(250);
  }
}

/** Seconds from the first of n POSTs to the last job's end. */
async function asJobs(base: string, kind: 'frame' | 'video', n: number): Promise<number> {
  const t0 = performance.now();
  const ids: string[] = [];
  for (const row of people(n))
    ids.push(
      (
        await post(`${base}${kind === 'frame' ? '/v1/frame' : '/v1/render'}`, {
          source,
          params: kind === 'frame' ? FRAME_PARAMS : VIDEO_PARAMS,
          args: row.args,
        })
      ).job_id,
    );
  for (const id of ids)
    for (;;) {
      const v = await json(`${base}/v1/jobs/${id}`);
      if (v.status === 'error') throw new Error(`job ${id}: ${v.message}`);
      if (v.status === 'ready') break;
      await pause(250);
    }
  return (performance.now() - t0) / 1000;
}

const rssMiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

async function archiveRss(base: string, id: string, pid: number) {
  const before = rssMiB(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(pid))), 20);
  const r = await fetch(`${base}/v1/batches/${id}/archive`);
  let bytes = 0;
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
  clearInterval(sampler);
  return { bytes, before, peak, after: rssMiB(pid) };
}

const perMin = (n: number, s: number) => ((n / s) * 60).toFixed(1);

for (const mode of MODES) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmr-bench-batch-'));
  const procs: StartedProcess[] = [];
  let redis: TestRedis | undefined;
  try {
    let api: StartedProcess;
    if (mode === 'embedded') {
      api = await startProcess('api', { DATA_DIR: dataDir });
      procs.push(api);
    } else {
      const workers = Number(mode.replace('redis', ''));
      redis = await TestRedis.start();
      const env = { REDIS_URL: redis.url, DATA_DIR: dataDir };
      api = await startProcess('api', { ...env, RENDER_CONCURRENCY: '0' });
      procs.push(api);
      for (let i = 0; i < workers; i++) procs.push(await startProcess('worker', env));
    }
    const base = api.url!;
    const frames = { batch: await asBatch(base, 'frame', FRAMES), jobs: await asJobs(base, 'frame', FRAMES) };
    console.log(
      `${mode}: ${FRAMES} frames 1280x720: batch ${frames.batch.s.toFixed(1)} s (its 202 after ${frames.batch.admitS.toFixed(1)} s; ${perMin(FRAMES, frames.batch.s)} rows/min), separate POSTs ${frames.jobs.toFixed(1)} s (${perMin(FRAMES, frames.jobs)} rows/min)`,
    );
    const videos = { batch: await asBatch(base, 'video', VIDEOS), jobs: await asJobs(base, 'video', VIDEOS) };
    console.log(
      `${mode}: ${VIDEOS} videos 3 s 720p: batch ${videos.batch.s.toFixed(1)} s (its 202 after ${videos.batch.admitS.toFixed(1)} s; ${perMin(VIDEOS, videos.batch.s)} rows/min), separate POSTs ${videos.jobs.toFixed(1)} s (${perMin(VIDEOS, videos.jobs)} rows/min)`,
    );
    const a = await archiveRss(base, videos.batch.id, api.proc.pid!);
    console.log(
      `${mode}: archive of the ${VIDEOS} videos: ${(a.bytes / 2 ** 20).toFixed(1)} MiB streamed; API RSS ${a.before.toFixed(0)} MiB before, ${a.peak.toFixed(0)} MiB at most while streaming, ${a.after.toFixed(0)} MiB after`,
    );
  } finally {
    for (const p of procs.reverse()) await p.stop();
    await redis?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
