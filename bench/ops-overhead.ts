// npm run bench:ops: what METRICS and RATE_LIMIT_POSTS cost per job: the same frame job (POST, its end, a GET) on two
// apps, one with both on and one with both off, a fake renderer that writes a tiny PNG (so only the HTTP path and the
// job service are timed), in interleaved blocks of 50 jobs; min, 25th percentile and median of the blocks' ms per job.
// On a machine shared with other work the low percentiles say the most. Compare the difference with a real job's time
// (npm run bench: a 1920x1080 frame takes 0.15 s or more).
import { startApp, FakeRenderer, type TestApp } from '../test/helpers/app.js';
import { post } from '../test/helpers/job-client.js';

const SRC = 'runner "0.0.3";\nscene s() -> Frame { compose [] }\n';
const BLOCKS = Number(process.env.BENCH_BLOCKS ?? 40);
const on = await startApp({ renderer: new FakeRenderer(), config: { metrics: true, rateLimitPosts: 1_000_000 } });
const off = await startApp({ renderer: new FakeRenderer(), config: { metrics: false, rateLimitPosts: 0 } });

async function block(t: TestApp, n: number): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const ended = new Promise<void>((r) => t.app.jobs.events.once('ended', () => r()));
    const id = (await post(t.app, '/v1/frame', { source: SRC })).json().job_id;
    await ended;
    await t.app.inject({ url: `/v1/jobs/${id}` });
  }
  return (performance.now() - t0) / n;
}

try {
  await block(on, 200);
  await block(off, 200);
  const res = { on: [] as number[], off: [] as number[] };
  // in turn, first one then the other, so a noisy stretch of the machine falls on both
  for (let r = 0; r < BLOCKS; r++) {
    const order = r % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const);
    for (const k of order) res[k].push(await block(k === 'on' ? on : off, 50));
  }
  const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * f)]!;
  console.log('| metrics + rate limit | min ms/job | p25 | median |\n|---|---|---|---|');
  for (const k of ['on', 'off'] as const)
    console.log(`| ${k} | ${q(res[k], 0).toFixed(3)} | ${q(res[k], 0.25).toFixed(3)} | ${q(res[k], 0.5).toFixed(3)} |`);
  const t0 = performance.now();
  for (let i = 0; i < 20; i++) await on.app.inject({ url: '/metrics' });
  console.log(`\none scrape of /metrics: ${((performance.now() - t0) / 20).toFixed(2)} ms`);
} finally {
  await on.close();
  await off.close();
}
