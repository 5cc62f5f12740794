// `npm run load`: a bounded load test of the real service on loopback.
//
// Starts the service as a child process (node --import tsx src/entry/server.ts) on a free 127.0.0.1 port and a
// temporary DATA_DIR, sends LOAD_REQUESTS (500) mixed requests from LOAD_CLIENTS (50) concurrent clients (small
// frames and videos, sources that fail to compile, and invalid bodies), polls every accepted job to an end state
// within LOAD_TIMEOUT_MS, stops the service with SIGTERM, and prints accepted, rejected, completed, failed, p50/p99
// enqueue latency and the server's peak memory. Exits 1 when a job is lost or stuck, an answer is unexpected, or the
// service does not stop cleanly. LOAD_CRASH=1 also SIGKILLs the service once a third of the jobs have ended and
// starts it again on the same DATA_DIR: every job must still end, none lost. LOAD_HOSTILE=1 mixes in the hostile
// requests of issue 10 (a 16,384-rect graph, a 4,096-rect graph as a 300 s 60 fps video, a 62 KB text.glyph, a 4K
// 300 s video, the animated graph) with JOB_TIMEOUT_MS=60000, and prints the ordinary jobs' p99 time to their end and
// the /healthz p99 measured throughout.
import { mkdtempSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, descendants, sleep } from '../test/helpers/service-process.js';
import { prng } from '../test/helpers/prng.js';

const REQUESTS = Number(process.env.LOAD_REQUESTS ?? 500);
const CLIENTS = Number(process.env.LOAD_CLIENTS ?? 50);
const TIMEOUT_MS = Number(process.env.LOAD_TIMEOUT_MS ?? 300_000);
const SEED = Number(process.env.LOAD_SEED ?? 1);
const CRASH = process.env.LOAD_CRASH === '1';
const HOSTILE = process.env.LOAD_HOSTILE === '1';

/** any: a hostile request may be refused at the door or end either way; it must only end, and on time */
type Expect = 'ready' | 'error' | 'rejected' | 'any';
interface Req {
  kind: string;
  path: string;
  body: string;
  expect: Expect;
}

const frameSource = (hex: string) => `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  let fg = rect(width: 160px, height: 160px, fill: #${hex});
  compose [bg, fg]
}
`;
const videoSource = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene s(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -200px, 1s => 200px } with { repeat: forever };
  compose [rect(width: 640px, height: 360px, fill: #000000), rect(width: 80px, height: 80px, fill: #ffffff).translate(x: x)]
}
`;

/** 2^levels rects built by doubling; `animated` moves the whole */
function rectGraph(levels: number, animated = false): string {
  const lines = [
    'runner "0.0.3";',
    'use std.shapes.*;',
    'use std.anim.*;',
    'scene graph(duration: Duration = 300s) -> Frame {',
    '  let l0 = rect(width: 4px, height: 4px);',
  ];
  for (let i = 1; i <= levels; i++) lines.push(`  let l${i} = compose [l${i - 1}, l${i - 1}];`);
  lines.push(
    animated ? `  compose [l${levels}.translate(x: animate { 0s => 0px, 300s => 100px })]` : `  compose [l${levels}]`,
  );
  return lines.join('\n') + '\n}\n';
}
const glyphSource = (n: number) =>
  `runner "0.0.3";\nuse std.shapes.*;\nuse std.mesh3d.*;\nuse std.text;\nuse std.scene3d.*;\nscene w() -> Frame {\n  render3d(extrude(text.glyph("${'x'.repeat(n)}", size: 20px), depth: 4px))\n}\n`;

/** The hostile requests of issue 10 (LOAD_HOSTILE=1). */
const HOSTILE_REQS: Req[] = [
  {
    kind: 'hostile-graph-16384',
    path: '/v1/render',
    body: JSON.stringify({ source: rectGraph(14), params: { fps: 60, duration: 300 } }),
    expect: 'error',
  },
  {
    kind: 'hostile-graph-4096-static',
    path: '/v1/render',
    body: JSON.stringify({ source: rectGraph(12), params: { width: 640, height: 360, fps: 60, duration: 300 } }),
    expect: 'any',
  },
  {
    kind: 'hostile-graph-4096-animated',
    path: '/v1/render',
    body: JSON.stringify({ source: rectGraph(12, true), params: { width: 640, height: 360, fps: 60, duration: 300 } }),
    expect: 'any',
  },
  {
    kind: 'hostile-glyph-62k',
    path: '/v1/frame',
    body: JSON.stringify({ source: glyphSource(62_000) }),
    expect: 'error',
  },
  {
    kind: 'hostile-uhd-300s',
    path: '/v1/render',
    body: JSON.stringify({ source: videoSource, params: { width: 3840, height: 2160, fps: 60, duration: 300 } }),
    expect: 'any',
  },
];

function buildRequests(): Req[] {
  const rand = prng(SEED);
  const out: Req[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    if (HOSTILE && rand() < 0.05) {
      out.push(HOSTILE_REQS[Math.floor(rand() * HOSTILE_REQS.length)]!);
      continue;
    }
    const r = rand();
    const hex = Math.floor(rand() * 0xffffff)
      .toString(16)
      .padStart(6, '0');
    const size = 32 + 16 * Math.floor(rand() * 4); // 32..80
    if (r < 0.5)
      out.push({
        kind: 'frame',
        path: '/v1/frame',
        body: JSON.stringify({ source: frameSource(hex), params: { width: size, height: size } }),
        expect: 'ready',
      });
    else if (r < 0.6)
      out.push({
        kind: 'video',
        path: '/v1/render',
        body: JSON.stringify({ source: videoSource, params: { width: 64, height: 64, fps: 10, duration: 0.5 } }),
        expect: 'ready',
      });
    else if (r < 0.67)
      out.push({
        kind: 'compile-error',
        path: '/v1/frame',
        body: JSON.stringify({
          source: `runner "0.0.3";\nscene s() -> Frame { compose [missing_${i}] }\n`,
          params: { width: 32, height: 32 },
        }),
        expect: 'error',
      });
    else {
      const bad = [
        ['bad-json', '/v1/frame', '{"source": "runner'],
        ['not-object', '/v1/render', '[1,2,3]'],
        ['missing-source', '/v1/frame', '{"params":{}}'],
        ['empty-source', '/v1/render', '{"source":""}'],
        ['bad-fps', '/v1/render', JSON.stringify({ source: videoSource, params: { fps: 0 } })],
        ['bad-width', '/v1/frame', JSON.stringify({ source: frameSource(hex), params: { width: 1e9 } })],
        ['too-large', '/v1/frame', JSON.stringify({ source: 'a'.repeat(65537) })],
        [
          'unknown-asset',
          '/v1/frame',
          JSON.stringify({ source: frameSource(hex), assets: { '/img/a.png': `asset_${'0'.repeat(32)}` } }),
        ],
      ] as const;
      const [kind, path, body] = bad[Math.floor(rand() * bad.length)];
      out.push({ kind, path, body, expect: 'rejected' });
    }
  }
  return out;
}

function percentile(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

function treeRss(pid: number): number {
  let sum = 0;
  for (const p of [{ pid }, ...descendants(pid)]) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${p.pid}/status`, 'utf8'));
      if (m) sum += Number(m[1]) * 1024;
    } catch {
      // gone
    }
  }
  return sum;
}

const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;

async function main(): Promise<number> {
  const t0 = Date.now();
  const deadline = t0 + TIMEOUT_MS;
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-load-'));
  const env = { LOG_LEVEL: 'warn', ...(HOSTILE && !process.env.JOB_TIMEOUT_MS ? { JOB_TIMEOUT_MS: '60000' } : {}) };
  let svc = await ServiceProcess.start(dataDir, env);
  const problems: string[] = [];
  let peakTree = 0;
  let peakBefore = 0;
  let crashed = false;
  let rssQuarter = 0;
  const sampler = setInterval(() => (peakTree = Math.max(peakTree, treeRss(svc.pid))), 250);
  // /healthz every 100 ms for the whole run: its latency is what any client of the API feels
  const health: number[] = [];
  let healthFailures = 0;
  let probing = true;
  const prober = (async () => {
    while (probing) {
      const s = performance.now();
      try {
        const r = await fetch(`http://127.0.0.1:${svc.port}/healthz`, { signal: AbortSignal.timeout(2000) });
        await r.text();
        if (r.status !== 200) healthFailures++;
      } catch {
        healthFailures++;
      }
      health.push(performance.now() - s);
      await sleep(100);
    }
  })();
  try {
    const reqs = buildRequests();
    const latencies: number[] = [];
    const statuses = new Map<number, number>();
    const accepted: { id: string; req: Req; at: number }[] = [];
    const endedAt = new Map<string, number>();
    let next = 0;
    const client = async () => {
      while (next < reqs.length && Date.now() < deadline) {
        const req = reqs[next++];
        const s = performance.now();
        let status = 0;
        let text = '';
        try {
          const r = await fetch(`http://127.0.0.1:${svc.port}${req.path}`, {
            method: 'POST',
            body: req.body,
            headers: { 'content-type': 'application/json' },
            signal: AbortSignal.timeout(30_000),
          });
          status = r.status;
          text = await r.text();
        } catch (e) {
          problems.push(`${req.kind}: request failed: ${(e as Error).message}`);
          continue;
        }
        latencies.push(performance.now() - s);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (status === 202) {
          accepted.push({ id: JSON.parse(text).job_id, req, at: Date.now() });
          if (req.expect === 'rejected') problems.push(`${req.kind}: accepted (${text.slice(0, 200)})`);
        } else if (status === 400) {
          if (req.expect !== 'rejected' && req.expect !== 'any')
            problems.push(`${req.kind}: rejected with 400 (${text.slice(0, 200)})`);
        } else if (status === 503) {
          // a full queue is a legitimate refusal (with retry-after); it is counted, never lost
        } else problems.push(`${req.kind}: unexpected ${status} (${text.slice(0, 200)})`);
      }
    };
    await Promise.all(Array.from({ length: CLIENTS }, client));
    const enqueueDone = Date.now();

    // poll every accepted job to an end state
    const outcome = new Map<string, { status: string; message?: string }>();
    const open = new Set(accepted.map((a) => a.id));
    while (open.size && Date.now() < deadline) {
      const ids = [...open];
      let i = 0;
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (i < ids.length) {
            const id = ids[i++];
            try {
              const r = await fetch(`http://127.0.0.1:${svc.port}/v1/jobs/${id}`, {
                signal: AbortSignal.timeout(10_000),
              });
              const j = (await r.json()) as { status?: string; message?: string; error?: string };
              if (r.status === 404) {
                outcome.set(id, { status: 'lost' });
                open.delete(id);
              } else if (j.status === 'ready' || j.status === 'error') {
                outcome.set(id, { status: j.status, message: j.message });
                endedAt.set(id, Date.now());
                open.delete(id);
              }
            } catch {
              // counted as still open; retried next round
            }
          }
        }),
      );
      if (!rssQuarter && outcome.size >= accepted.length / 4) rssQuarter = svc.rss();
      if (CRASH && !crashed && open.size && outcome.size >= accepted.length / 3) {
        crashed = true;
        peakBefore = svc.peakRss();
        console.log(`SIGKILL the service with ${open.size} jobs open; starting it again on the same DATA_DIR`);
        await svc.stop();
        svc = await ServiceProcess.start(dataDir, env);
        continue;
      }
      if (open.size) await sleep(250);
    }
    const allDone = Date.now();

    let completed = 0;
    let failed = 0;
    let lost = 0;
    for (const a of accepted) {
      const o = outcome.get(a.id);
      if (!o) continue;
      if (o.status === 'lost') {
        lost++;
        problems.push(`${a.req.kind} ${a.id}: lost (404)`);
      } else if (o.status === 'ready') completed++;
      else failed++;
      if (o.status !== 'lost' && o.status !== a.req.expect && a.req.expect !== 'any')
        problems.push(
          `${a.req.kind} ${a.id}: ended ${o.status}, expected ${a.req.expect}${o.message ? ` (${o.message})` : ''}`,
        );
    }
    const stuck = open.size;
    if (stuck) problems.push(`${stuck} jobs still pending after ${TIMEOUT_MS} ms`);
    const peakRss = Math.max(peakBefore, svc.peakRss());
    const rssNow = svc.rss();

    // probes stop before the shutdown (its 503 shutting_down is not a failure)
    probing = false;
    await prober;
    const stop = await svc.kill('SIGTERM', 30_000);
    if (stop.code !== 0) problems.push(`the service did not stop cleanly on SIGTERM: ${JSON.stringify(stop)}`);

    const ordinary = accepted
      .filter((a) => !a.req.kind.startsWith('hostile') && endedAt.has(a.id))
      .map((a) => endedAt.get(a.id)! - a.at);
    const rejected400 = statuses.get(400) ?? 0;
    const rejected503 = statuses.get(503) ?? 0;
    const lines = [
      `cmrender load test: ${reqs.length} requests from ${CLIENTS} concurrent clients on 127.0.0.1:${svc.port} (seed ${SEED})${HOSTILE ? `, hostile mix (${reqs.filter((r) => r.kind.startsWith('hostile')).length} hostile)` : ''}`,
      `  accepted   ${accepted.length}`,
      `  rejected   ${rejected400 + rejected503} (400: ${rejected400}, 503 queue full: ${rejected503})`,
      `  completed  ${completed}`,
      `  failed     ${failed} (jobs whose source does not compile: expected)`,
      `  lost       ${lost}`,
      `  stuck      ${stuck}${crashed ? ' (the service was SIGKILLed and restarted once)' : ''}`,
      `  ordinary jobs, 202 to end (polled every 250 ms): p50 ${percentile(ordinary, 50).toFixed(0)} ms, p99 ${percentile(ordinary, 99).toFixed(0)} ms`,
      `  /healthz every 100 ms: ${health.length} probes, p50 ${percentile(health, 50).toFixed(1)} ms, p99 ${percentile(health, 99).toFixed(1)} ms, max ${Math.max(...health).toFixed(1)} ms, failed or over 2 s: ${healthFailures}`,
      `  enqueue latency p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${Math.max(...latencies).toFixed(1)} ms`,
      `  server peak RSS ${mb(peakRss)} (Node process; ${mb(rssQuarter)} when a quarter of the jobs had ended, ${mb(rssNow)} at the end); with Chromium and ffmpeg ${mb(peakTree)} peak`,
      `  time: enqueue ${((enqueueDone - t0) / 1000).toFixed(1)} s, all jobs ended ${((allDone - t0) / 1000).toFixed(1)} s`,
    ];
    console.log(lines.join('\n'));
    if (problems.length) {
      console.error(`\n${problems.length} problem(s):\n  ${problems.slice(0, 30).join('\n  ')}`);
      return 1;
    }
    console.log('OK: every accepted job ended; nothing lost or stuck');
    return 0;
  } finally {
    probing = false;
    clearInterval(sampler);
    await svc.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
