// `npm run bench -- --against DIR`: this tree's built service against another build (DIR holds a built copy of the
// project, e.g. main at an issue's start: its dist/app/server.js is run with its own dist/viewer) in one sitting.
// Both run as child processes the way `npm start` runs them (the bundle, RENDER_CACHE=off, one GL backend: egl
// unless --gl says), and every run alternates between them, so a noisy stretch of a shared machine falls on both.
// Prints per job the medians and their ratio (this tree / DIR), then where the time went in each (the stage times
// of the service's own job_ready log line: medians over the runs, in ms), the CPU seconds each job cost by process
// (Chromium's GPU process, its renderers, the rest of Chromium, the service, ffmpeg; from /proc), then the throughput
// rows: N jobs of one scene, each with another argument, posted at once, as jobs per minute.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { STAGES } from '../../src/render/stage-times.js';
import { onLogLines } from '../../test/helpers/service-spawn.js';

export interface AgainstCase {
  name: string;
  path: string;
  body: { source: string; params: Record<string, unknown> };
  heavy?: boolean;
}

interface Tree {
  label: string;
  dir: string;
  base: string;
  proc: ChildProcess;
  dataDir: string;
  /** job id -> its job_ready log line's numbers */
  ready: Map<string, Record<string, number>>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** the CPU columns: Chromium's GPU process, its renderers, the rest of Chromium, the service, its reaped children */
const KINDS = ['gpu', 'renderer', 'chromium other', 'service', 'ffmpeg'] as const;
type Kind = (typeof KINDS)[number];

/**
 * CPU seconds so far of a service's process tree, by kind, from /proc: Chromium's processes by their --type, the
 * service's own time, and its reaped children's (ffmpeg exits with its job, so its time lands there).
 */
function cpuByKind(root: number): Record<Kind, number> {
  const out: Record<Kind, number> = { gpu: 0, renderer: 0, 'chromium other': 0, service: 0, ffmpeg: 0 };
  const parent = new Map<number, number>();
  const stats = new Map<number, { f: string[]; cmd: string }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      parent.set(Number(d), Number(f[1]));
      stats.set(Number(d), { f, cmd: readFileSync(`/proc/${d}/cmdline`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  for (const [pid, { f, cmd }] of stats) {
    let p: number | undefined = pid;
    while (p !== undefined && p > 1 && p !== root) p = parent.get(p);
    if (p !== root) continue;
    const own = (Number(f[11]) + Number(f[12])) / 100;
    if (pid === root) {
      out.service += own;
      out.ffmpeg += (Number(f[13]) + Number(f[14])) / 100;
    } else if (cmd.includes('--type=gpu-process')) out.gpu += own;
    else if (cmd.includes('--type=renderer')) out.renderer += own;
    else if (cmd.includes('ffmpeg')) out.ffmpeg += own;
    else out['chromium other'] += own;
  }
  return out;
}

async function startTree(label: string, dir: string, gl: string): Promise<Tree> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-bench-against-'));
  const proc = spawn(process.execPath, [join(dir, 'dist', 'app', 'server.js')], {
    cwd: dir,
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'info',
      RENDER_CACHE: 'off',
      RENDER_GL: gl,
      DATA_DIR: dataDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Map<string, Record<string, number>>();
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const port = await new Promise<number>((res, rej) => {
    proc.once('exit', (code) => rej(new Error(`${label}: exited ${code} before listening\n${stderr}`)));
    onLogLines(proc.stdout!, (line) => {
      // the start's log lines name the address it listens at (PORT=0: the system's choice)
      const port = /:(\d+)\/?$/.exec(typeof line.address === 'string' ? line.address : '')?.[1];
      if (port) res(Number(port));
      if (line.event === 'job_ready' && typeof line.job_id === 'string')
        ready.set(
          line.job_id,
          Object.fromEntries(Object.entries(line).filter((e): e is [string, number] => typeof e[1] === 'number')),
        );
    });
  });
  const base = `http://127.0.0.1:${port}`;
  // the service warms its browser before it answers ready
  for (let i = 0; i < 600; i++) {
    const r = await fetch(`${base}/readyz`).catch(() => null);
    if (r?.ok) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  return { label, dir, base, proc, dataDir, ready };
}

async function post(tree: Tree, path: string, body: unknown): Promise<string> {
  const r = await fetch(tree.base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 202) throw new Error(`${tree.label} ${path}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { job_id: string }).job_id;
}

/**
 * Waits for the job's end on its events stream (GET /v1/jobs/{id}/events), which the service sends as the job ends:
 * polling every few ms would cost both services CPU the jobs need on a 2-core machine.
 */
async function until(tree: Tree, id: string): Promise<void> {
  const r = await fetch(`${tree.base}/v1/jobs/${id}/events`);
  const reader = r.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${tree.label}: the events of ${id} ended without an end`);
    buf += value;
    const end = /event: end\ndata: (.*)\n/.exec(buf);
    if (!end) continue;
    await reader.cancel();
    const j = JSON.parse(end[1]!) as { status: string; message?: string };
    if (j.status === 'error') throw new Error(`${tree.label}: ${j.message}`);
    return;
  }
}

/** One job, POST to ready (ms), its stage times once its log line has come, and its tree's CPU by process kind. */
async function job(
  tree: Tree,
  c: AgainstCase,
): Promise<{ ms: number; stages: Record<string, number>; cpu: Record<Kind, number> }> {
  const c0 = cpuByKind(tree.proc.pid!);
  const t0 = performance.now();
  const id = await post(tree, c.path, c.body);
  await until(tree, id);
  const ms = performance.now() - t0;
  for (let i = 0; i < 200 && !tree.ready.has(id); i++) await new Promise((res) => setTimeout(res, 5));
  const c1 = cpuByKind(tree.proc.pid!);
  const cpu = Object.fromEntries(KINDS.map((k) => [k, c1[k] - c0[k]])) as Record<Kind, number>;
  return { ms, stages: tree.ready.get(id) ?? {}, cpu };
}

export async function runAgainst(opts: {
  against: string;
  gl: string;
  runs: number;
  cases: AgainstCase[];
  throughput: { name: string; path: string; bodies: AgainstCase['body'][] }[];
}): Promise<void> {
  const trees = [
    await startTree('this tree', resolve('.'), opts.gl),
    await startTree(basename(resolve(opts.against)), resolve(opts.against), opts.gl),
  ];
  try {
    const rows: string[] = [];
    const stageRows: string[] = [];
    const cpuRows: string[] = [];
    const keys = [...STAGES.map((s) => `${s}_ms`), 'compile_ms', 'queue_wait_ms', 'render_ms', 'total_ms'];
    for (const c of opts.cases) {
      for (const t of trees) await job(t, c); // warm-up
      const runs = c.heavy ? Math.min(3, opts.runs) : opts.runs;
      const ms = trees.map(() => [] as number[]);
      const stages = trees.map(() => [] as Record<string, number>[]);
      const cpus = trees.map(() => [] as Record<Kind, number>[]);
      for (let i = 0; i < runs; i++) {
        // alternate which tree goes first
        const order = i % 2 ? [1, 0] : [0, 1];
        for (const k of order) {
          const r = await job(trees[k]!, c);
          ms[k]!.push(r.ms);
          stages[k]!.push(r.stages);
          cpus[k]!.push(r.cpu);
        }
      }
      const med = ms.map((m) => median(m) / 1000);
      const cells = ms.map(
        (m, k) => `${med[k]!.toFixed(3)} (${(Math.min(...m) / 1000).toFixed(3)}-${(Math.max(...m) / 1000).toFixed(3)})`,
      );
      rows.push(`| ${c.name} | ${runs} | ${cells.join(' | ')} | x${(med[0]! / med[1]!).toFixed(2)} |`);
      trees.forEach((t, k) => {
        const cellsOf = keys.map((key) => {
          const xs = stages[k]!.map((s) => s[key]).filter((v): v is number => v !== undefined);
          return xs.length ? median(xs).toFixed(0) : '';
        });
        stageRows.push(`| ${c.name} | ${t.label} | ${cellsOf.join(' | ')} |`);
        const cpuOf = KINDS.map((kind) => median(cpus[k]!.map((x) => x[kind])));
        const sum = cpuOf.reduce((a, b) => a + b, 0);
        cpuRows.push(`| ${c.name} | ${t.label} | ${[...cpuOf, sum].map((x) => x.toFixed(2)).join(' | ')} |`);
      });
    }
    const tputRows: string[] = [];
    for (const tp of opts.throughput) {
      const perMin: number[] = [];
      for (const k of [1, 0]) {
        const t = trees[k]!;
        const t0 = performance.now();
        const ids = await Promise.all(tp.bodies.map((b) => post(t, tp.path, b)));
        for (const id of ids) await until(t, id);
        perMin[k] = (tp.bodies.length / (performance.now() - t0)) * 60_000;
      }
      tputRows.push(
        `| ${tp.name} | ${perMin.map((p) => p.toFixed(0)).join(' | ')} | x${(perMin[0]! / perMin[1]!).toFixed(2)} |`,
      );
    }
    const [a, b] = trees.map((t) => t.label);
    console.log(`\nPOST to ready, ${opts.gl}, seconds: median (min-max); ratio = ${a} / ${b}\n`);
    console.log(`| job | runs | ${a} | ${b} | ratio |`);
    console.log('|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    console.log(
      '\nWhere the time went (the job_ready log line, ms, medians over the runs; a video sums over frames)\n',
    );
    console.log(`| job | tree | ${keys.map((k) => k.replace(/_ms$/, '')).join(' | ')} |`);
    console.log(`|---|---|${keys.map(() => '---').join('|')}|`);
    for (const r of stageRows) console.log(r);
    console.log(
      '\nCPU seconds of a job by process (/proc, medians over the runs; other work on the machine not counted)\n',
    );
    console.log(`| job | tree | ${KINDS.join(' | ')} | total |`);
    console.log(`|---|---|${KINDS.map(() => '---').join('|')}|---|`);
    for (const r of cpuRows) console.log(r);
    if (tputRows.length) {
      console.log(`\nThroughput: every job posted at once, jobs per minute; ratio = ${a} / ${b}\n`);
      console.log(`| jobs | ${a} | ${b} | ratio |`);
      console.log('|---|---|---|---|');
      for (const r of tputRows) console.log(r);
    }
    console.log('');
  } finally {
    for (const t of trees) {
      t.proc.kill('SIGTERM');
      await new Promise((res) => (t.proc.exitCode !== null ? res(null) : t.proc.once('exit', res)));
      rmSync(t.dataDir, { recursive: true, force: true });
    }
  }
}
