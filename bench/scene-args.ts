// npx tsx bench/scene-args.ts (after npm run build): one scene for many people, two ways. A batch of 50 frames of
// examples/title-card.cm at 1280x720 (t = 2 s), POSTed one by one to /v1/frame on a warm in-process service (real
// Chromium, one render slot, no render cache): with the 50 names as `args` against the same 50 with each name pasted
// into the source's default. Jobs per minute of each (POST to ready, then the next), in one sitting, the two ways
// alternating by batch so a noisy stretch of a shared machine falls on both; and how many compiles the evaluation
// thread's CompileCache shared (src/lang/index.ts: the parse and check of one source, kept by its text).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { realRenderer, startApp } from '../test/helpers/app.js';
import { post } from '../test/helpers/job-client.js';
import { repoRoot } from '../src/paths.js';

const SOURCE = readFileSync(join(repoRoot, 'examples', 'title-card.cm'), 'utf8');
const DEFAULT = 'name: String = "Ana Lima"';
if (!SOURCE.includes(DEFAULT)) throw new Error(`examples/title-card.cm no longer declares ${DEFAULT}`);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const FIRST = ['Ana', 'Bo', 'Cy', 'Dee', 'Eli', 'Fay', 'Gus', 'Hana', 'Ivo', 'Jun'];
const LAST = ['Lima', 'Okafor', 'Novak', 'Sato', 'Reyes'];
const NAMES = Array.from({ length: 50 }, (_, i) => `${FIRST[i % 10]} ${LAST[Math.floor(i / 10)]} ${i + 1}`);
const PARAMS = { at: 2, width: 1280, height: 720 };

const t = await startApp({ renderer: realRenderer(), ownsRenderer: true });

async function one(body: unknown): Promise<void> {
  const ended = new Promise<void>((r) => t.app.jobs.events.once('ended', () => r()));
  const r = await post(t.app, '/v1/frame', body);
  if (r.statusCode !== 202) throw new Error(`POST /v1/frame answered ${r.statusCode}: ${r.body}`);
  await ended;
  const v = (await t.app.inject({ url: `/v1/jobs/${r.json().job_id}` })).json();
  if (v.status !== 'ready') throw new Error(`job ${v.job_id} ended ${v.status}: ${v.message}`);
}

const bodies = {
  args: NAMES.map((name) => ({ source: SOURCE, params: PARAMS, args: { name } })),
  pasted: NAMES.map((name) => ({ source: SOURCE.replace(DEFAULT, `name: String = "${name}"`), params: PARAMS })),
};

async function batch(way: keyof typeof bodies): Promise<number> {
  const t0 = performance.now();
  for (const b of bodies[way]) await one(b);
  return (bodies[way].length / (performance.now() - t0)) * 60_000;
}

try {
  // warm the pages and the evaluation thread
  for (let i = 0; i < 3; i++) await one(bodies.args[i]!);
  const per: Record<keyof typeof bodies, number[]> = { args: [], pasted: [] };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (['pasted', 'args'] as const) : (['args', 'pasted'] as const);
    for (const way of order) per[way].push(await batch(way));
  }
  console.log('| 50 frames of examples/title-card.cm, 1280x720 | jobs per minute, each batch | best |');
  console.log('|---|---|---|');
  for (const way of ['args', 'pasted'] as const)
    console.log(
      `| ${way === 'args' ? '50 names as `args`, one source' : '50 sources, the name pasted in'} | ${per[way].map((x) => x.toFixed(0)).join(', ')} | ${Math.max(...per[way]).toFixed(0)} |`,
    );
} finally {
  await t.close();
}
