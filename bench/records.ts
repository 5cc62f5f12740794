// npm run bench:records (node --expose-gc for the live heap): what ended job records cost. POSTs BENCH_JOBS (default 2,000) frame jobs whose 64 KiB
// sources fail to compile (they end in milliseconds, as fast as a client can POST), through the real service (real
// renderer, the journal on disk), and prints the process's RSS and the journal's size before and after, and how
// many records are kept (MAX_ENDED_JOBS, default 10,000). Issue 24 measured 1,700-1,800 such jobs: RSS 188 ->
// ~800 MB and a 750 MB journal, when every record kept its source.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { buildApp } from '../src/server/app.js';
import { loadConfig, type Config } from '../src/config/settings.js';
import { buildRenderers } from '../src/entry/renderers.js';

const JOBS = Number(process.env.BENCH_JOBS ?? 2000);
const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-records-'));
const log = pino({ level: 'warn' });
const config: Config = { ...loadConfig(), dataDir, logLevel: 'warn' };
const { renderer } = buildRenderers(config, log);
const app = await buildApp({ config, renderer, logger: log });
await app.ready();
const journal = join(dataDir, 'jobs.journal');
const mb = (n: number) => (n / 1024 / 1024).toFixed(1);
const rss = () => process.memoryUsage().rss;

/** A 64 KiB source that fails to compile (an unknown name), different per job. */
const source = (i: number) =>
  `runner "0.0.3";\n// ${String(i).padStart(8, '0')} ${'x'.repeat(64 * 1024 - 80)}\nscene s() -> Frame { nope }\n`;

const heap = () => process.memoryUsage().heapUsed;
global.gc?.();
const rss0 = rss();
const heap0 = heap();
const journal0 = statSync(journal).size;
const t0 = performance.now();
let errors = 0;
for (let i = 0; i < JOBS; i++) {
  const r = await app.inject({ method: 'POST', url: '/v1/frame', payload: { source: source(i) } });
  if (r.statusCode !== 202) throw new Error(`POST ${i}: ${r.statusCode} ${r.body}`);
  const id = r.json().job_id as string;
  for (;;) {
    const v = (await app.inject({ url: `/v1/jobs/${id}` })).json();
    if (v.status === 'error') {
      errors++;
      break;
    }
    if (v.status === 'ready') throw new Error(`job ${i} rendered`);
    await new Promise((res) => setTimeout(res, 2));
  }
}
const seconds = (performance.now() - t0) / 1000;
global.gc?.();
console.log(`${JOBS} failing 64 KiB jobs in ${seconds.toFixed(1)} s (${errors} ended in error)`);
console.log(
  `RSS ${mb(rss0)} -> ${mb(rss())} MB; live heap ${mb(heap0)} -> ${mb(heap())} MB (after gc with --expose-gc); ` +
    `journal ${mb(journal0)} -> ${mb(statSync(journal).size)} MB`,
);
console.log(`MAX_ENDED_JOBS ${config.maxEndedJobs}`);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
