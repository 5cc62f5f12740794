// npm run bench:cluster: one 20 s 1080p video at 30 fps (600 frames, 10 chunks of 60) of the homepage scene (our own
// examples/glyphs-3d.cm when ../shared is absent), rendered by the embedded service (`npm start`, no Redis) and by
// two render workers behind an API on a redis-server of its own, all on this machine. Prints the wall time (POST to
// ready), each chunk's render time and worker, the join time, and the queue overhead (wall time less the busiest
// worker's chunk time and the join), then what N machines would take: ceil(10 / N) chunk times + join + overhead.
// Also a small frame's POST-to-ready time in both modes (the per-job round trip through Redis).
// BENCH_STORAGE=s3: the cluster keeps its outputs and segments in an S3-compatible bucket (s3rver on a loopback
// port, as the tests start it) and each worker has its own DATA_DIR: nothing shared but Redis and the bucket; then a
// repeat of the video is timed too (answered from the render cache). BENCH_SIZE=WxH and BENCH_SECONDS=n make the
// video smaller or shorter (default 1920x1080, 20 s). Every timed job asks `cache: false`: rendered, not answered from the cache (it still fills it).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplesDir, hasCorpus, ownExamplesDir } from '../test/helpers/shared.js';
import { TestRedis } from '../test/helpers/redis.js';
import { startProcess, type StartedProcess } from '../test/helpers/started-process.js';
import { postJson, pollJob } from '../test/helpers/job-client.js';
import { TestS3 } from '../test/helpers/s3.js';

const scene = await readFile(
  hasCorpus ? join(examplesDir, 'homepage.cm') : join(ownExamplesDir, 'glyphs-3d.cm'),
  'utf8',
);
const onBucket = process.env.BENCH_STORAGE === 's3';
const [width, height] = (process.env.BENCH_SIZE ?? '1920x1080').split('x').map(Number) as [number, number];
const seconds = Number(process.env.BENCH_SECONDS ?? 20);
const VIDEO = { source: scene, params: { fps: 30, duration: seconds, width, height, cache: false } };
const FRAME = { source: scene, params: { width: 320, height: 180, cache: false } };
const what = `${seconds} s ${width}x${height} video`;
const s = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

async function timed(base: string, path: string, body: unknown): Promise<{ ms: number; id: string }> {
  const t0 = performance.now();
  const posted = await postJson(base, path, body);
  if (posted.status !== 202) throw new Error(`POST ${path}: ${posted.status} ${JSON.stringify(posted.json)}`);
  const done = await pollJob(base, posted.json.job_id, 30 * 60_000);
  if (done.status !== 'ready') throw new Error(`job ended ${JSON.stringify(done)}`);
  return { ms: performance.now() - t0, id: posted.json.job_id };
}

const procs: StartedProcess[] = [];
let redis: TestRedis | undefined;
let s3: TestS3 | undefined;
const dirs: string[] = [];
try {
  // embedded: one process, its own queue, the chunks rendered in order
  const dir1 = await mkdtemp(join(tmpdir(), 'cmr-bench-emb-'));
  dirs.push(dir1);
  const emb = await startProcess('api', { DATA_DIR: dir1, RENDER_CACHE: 'on' });
  procs.push(emb);
  await timed(emb.url!, '/v1/frame', FRAME); // warm
  const embFrame = await timed(emb.url!, '/v1/frame', FRAME);
  const embVideo = await timed(emb.url!, '/v1/render', VIDEO);
  await emb.stop();
  console.log(`embedded (file:): ${what} ${s(embVideo.ms)}; small frame ${s(embFrame.ms)}`);

  // two workers behind an API that renders nothing
  redis = await TestRedis.start();
  for (let i = 0; i < 3; i++) dirs.push(await mkdtemp(join(tmpdir(), 'cmr-bench-cluster-')));
  if (onBucket) s3 = await TestS3.start();
  // on the bucket each process has its own DATA_DIR (scratch only); on file: they share one
  const env = (i: number) => ({
    REDIS_URL: redis!.url,
    DATA_DIR: dirs[onBucket ? 1 + i : 1]!,
    RENDER_CACHE: 'on',
    ...(s3 ? s3.env('bench') : {}),
  });
  const [api, ...workers] = await Promise.all([
    startProcess('api', { ...env(0), RENDER_CONCURRENCY: '0' }),
    startProcess('worker', env(1)),
    startProcess('worker', env(2)),
  ]);
  procs.push(api!, ...workers);
  await timed(api!.url!, '/v1/frame', FRAME);
  await timed(api!.url!, '/v1/frame', FRAME); // both workers warm
  const clFrame = await timed(api!.url!, '/v1/frame', FRAME);
  const clVideo = await timed(api!.url!, '/v1/render', VIDEO);
  const chunks = workers.flatMap((w, wi) =>
    w.lines
      .filter((l) => l.event === 'chunk_done' && l.job_id === clVideo.id)
      .map((l) => ({ worker: wi + 1, chunk: Number(l.chunk), ms: Number(l.ms) })),
  );
  chunks.sort((a, b) => a.chunk - b.chunk);
  const ready = workers.flatMap((w) => w.lines).find((l) => l.event === 'job_ready' && l.job_id === clVideo.id);
  const joinMs = Number(ready?.join_ms ?? 0);
  const busiest = Math.max(
    ...workers.map((_, wi) => chunks.filter((c) => c.worker === wi + 1).reduce((a, c) => a + c.ms, 0)),
  );
  const overhead = clVideo.ms - busiest - joinMs;
  const mean = chunks.reduce((a, c) => a + c.ms, 0) / chunks.length;
  console.log(
    `2 workers (${onBucket ? 'S3 bucket, own DATA_DIRs' : 'file:, one DATA_DIR'}): ${what} ${s(clVideo.ms)}; small frame ${s(clFrame.ms)}`,
  );
  console.log(`  chunks: ${chunks.map((c) => `#${c.chunk} w${c.worker} ${s(c.ms)}`).join(', ')}`);
  console.log(`  mean chunk ${s(mean)}, join ${s(joinMs)}, queue overhead ${s(overhead)} per job`);
  console.log(`  frame round trip through Redis: +${s(clFrame.ms - embFrame.ms)} over embedded`);
  for (const n of [1, 2, 5, 10])
    console.log(
      `  projection, ${n} machine${n > 1 ? 's' : ''}: ${s(Math.ceil(chunks.length / n) * mean + joinMs + overhead)}`,
    );
  // the same video again, the render cache allowed: the timed run filled it, so this is a copy, not a render
  const again = await timed(api!.url!, '/v1/render', { ...VIDEO, params: { ...VIDEO.params, cache: true } });
  const view = await pollJob(api!.url!, again.id);
  console.log(
    `  render cache: the repeat was ready ${view.completed_at - view.created_at} ms after its creation (cached: ${view.cached === true}), ${s(again.ms)} POST to ready`,
  );
} finally {
  await Promise.all(procs.map((p) => p.stop()));
  await redis?.close();
  await s3?.close();
  for (const d of dirs) await rm(d, { recursive: true, force: true });
}
