// npm run bench:eval-cost: issue 24 row 7, evaluation cost at admission and off the event loop. Prints
//  1. the admission estimate's cost per request (the estimate thread, median of BENCH_REPEAT) for a plain animated
//     scene and for a scene whose every frame spends most of the step budget (test/helpers/step-heavy.ts);
//  2. the report's request (that scene, 64x64, 300 s at 60 fps) against the service as a child process with
//     JOB_TIMEOUT_MS=BENCH_LIMIT_MS (60 s): its answer, and if admitted how its job ended;
//  3. an admitted render of the same scene (BENCH_SECONDS s at 60 fps, 64x64): the job's time and /healthz answered
//     every 25 ms meanwhile (p50, p99, max), the probing client sharing the machine's cores.
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, sleep } from '../test/helpers/service-process.js';
import { EvalThreads } from '../src/render/eval-thread.js';
import { stepHeavy } from '../test/helpers/step-heavy.js';

const LIMIT_MS = Number(process.env.BENCH_LIMIT_MS ?? 60_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PLAIN = [
  'runner "0.0.3";',
  'use std.shapes.*;',
  'use std.anim.*;',
  'scene s(duration: Duration = 10s) -> Frame {',
  '  compose [rect(width: 300px, height: 300px, fill: #ff3399).translate(x: animate { 0s => 0px, 10s => 600px })]',
  '}',
].join('\n');

const q = (xs: number[], f: number) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) * f)] ?? 0;
const fmt = (xs: number[]) =>
  `${xs.length} probes, p50 ${q(xs, 0.5).toFixed(1)} ms, p99 ${q(xs, 0.99).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms`;

async function admissionCost(): Promise<void> {
  const t = new EvalThreads();
  try {
    for (const [name, source] of [
      ['plain animated scene, 1920x1080 10 s 30 fps', PLAIN],
      ['step-heavy scene, 64x64 300 s 60 fps', stepHeavy()],
    ] as const) {
      const params = name.startsWith('plain')
        ? { fps: 30, duration: 10 }
        : { width: 64, height: 64, fps: 60, duration: 300 };
      const job = { kind: 'video' as const, source, params, assets: {} };
      await t.estimate(job); // the thread's start is not the cost of a request
      const ms: number[] = [];
      let e;
      for (let i = 0; i < REPEAT; i++) {
        const t0 = performance.now();
        e = await t.estimate(job);
        ms.push(performance.now() - t0);
      }
      console.log(
        `estimate, ${name}: median ${q(ms, 0.5).toFixed(1)} ms, min ${q(ms, 0).toFixed(1)} ms; ${JSON.stringify(e)}`,
      );
    }
  } finally {
    await t.close();
  }
}

/** Probes /healthz every 25 ms until the job leaves pending; the job's answer and the probes' latencies. */
async function watch(s: ServiceProcess, id: string) {
  const latencies: number[] = [];
  let failed = 0;
  const t0 = Date.now();
  for (;;) {
    const p0 = performance.now();
    try {
      const r = await s.req('GET', '/healthz', undefined, 5000);
      if (r.status !== 200) failed++;
    } catch {
      failed++;
    }
    latencies.push(performance.now() - p0);
    const j = await s.job(id);
    if (j.body?.status !== 'pending') return { job: j, latencies, failed, wallMs: Date.now() - t0 };
    await sleep(25);
  }
}

await admissionCost();
const dir = mkdtempSync(join(tmpdir(), 'cmrender-bench-eval-'));
const s = await ServiceProcess.start(dir, { JOB_TIMEOUT_MS: String(LIMIT_MS) });
try {
  const heavy = stepHeavy();
  const report = await s.req('POST', '/v1/render', {
    source: heavy,
    params: { width: 64, height: 64, fps: 60, duration: 300 },
  });
  console.log(
    `\nthe report's request (64x64, 300 s, 60 fps, JOB_TIMEOUT_MS=${LIMIT_MS}): ${report.status} ${report.text}`,
  );
  if (report.status === 202) {
    const w = await watch(s, report.body.job_id);
    console.log(`  ended after ${(w.wallMs / 1000).toFixed(1)} s: ${w.job.text}`);
    console.log(`  /healthz meanwhile: ${fmt(w.latencies)}, ${w.failed} failed`);
  }
  const ok = await s.req('POST', '/v1/render', {
    source: heavy,
    params: { width: 64, height: 64, fps: 60, duration: SECONDS },
  });
  console.log(`\nan admitted one (64x64, ${SECONDS} s, 60 fps): ${ok.status}`);
  if (ok.status === 202) {
    const w = await watch(s, ok.body.job_id);
    const b = w.job.body;
    console.log(
      `  ${b.status} after ${((b.completed_at - b.created_at) / 1000).toFixed(1)} s (${b.message ?? 'ready'})`,
    );
    console.log(`  /healthz meanwhile: ${fmt(w.latencies)}, ${w.failed} failed`);
    // the job's stage times, from its "job ready" log line
    const line = s.log.split('\n').find((l) => l.includes(ok.body.job_id) && l.includes('"job ready"'));
    if (line) {
      const rec = JSON.parse(line) as Record<string, unknown>;
      const ms = Object.entries(rec).filter(([k, v]) => k.endsWith('_ms') && typeof v === 'number');
      console.log(`  stage times: ${ms.map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
  }
} finally {
  await s.stop();
  await rm(dir, { recursive: true, force: true });
}
