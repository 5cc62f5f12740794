// Where the test suite's CPU goes: runs scripts/test.ts (same arguments) and, while it runs, reads every process's
// CPU time from /proc twice a second; at the end it charges each process to the test module it descends from (the
// node process whose command line names one *.test.ts, or a batch of files sharing a process: scripts/test.ts's
// *.batch.js; run it on a file or two for one file's share) and prints them by CPU seconds, split by kind of process
// (Chromium, the test's own node, a service it started, ffmpeg, ...). The suite is CPU-bound on 2 cores, so CPU, not
// a file's wall time (which overlaps the others'), says what a change to the suite saves. Linux only. A process that
// lives less than a sampling period is missed, so the totals are a lower bound.
//
//   npx tsx bench/suite-cpu.ts [FILE_OR_DIR ...]     (default: test/; the whole run's output goes to stderr)
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/paths.js';

interface Proc {
  pid: number;
  ppid: number;
  start: number;
  comm: string;
  cmd: string;
  cpu: number;
}

const TICKS = 100; // USER_HZ on Linux
const procs = new Map<string, Proc>();

function sample(): void {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      const f = stat.slice(close + 2).split(' ');
      const start = Number(f[19]);
      const key = `${name}:${start}`;
      const cpu = (Number(f[11]) + Number(f[12])) / TICKS;
      const known = procs.get(key);
      if (known) {
        known.cpu = cpu;
        continue;
      }
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replaceAll('\0', ' ').slice(0, 400);
      procs.set(key, {
        pid: Number(name),
        ppid: Number(f[1]),
        start,
        comm: stat.slice(stat.indexOf('(') + 1, close),
        cmd,
        cpu,
      });
    } catch {
      // gone between the listing and the read
    }
  }
}

/** what a test process runs: one test file, or a batch of them (scripts/test.ts) */
const TEST_MODULE = /\S+\.(?:test\.[jt]s|batch\.js)/g;

/** The kind of a process, for the split. */
function kind(p: Proc): string {
  if (p.cmd.match(TEST_MODULE)?.length === 1 && /node/.test(p.comm)) return 'test';
  if (/dist\/app\/|src\/entry\//.test(p.cmd)) return 'service';
  if (/chrom/i.test(p.comm) || /chromium/.test(p.cmd)) {
    // which of Chromium's processes: the browser's start-up, the GPU process's drawing, the pages' script
    const type = /--type=(\S+)/.exec(p.cmd)?.[1];
    if (type === undefined) return 'chromium browser';
    return type === 'gpu-process' ? 'chromium gpu' : type === 'renderer' ? 'chromium page' : 'chromium other';
  }
  if (/^ff(mpeg|probe)$/.test(p.comm)) return 'ffmpeg';
  if (/redis/.test(p.comm)) return 'redis';
  return /node/.test(p.comm) ? 'node' : 'other';
}

const child = spawn(
  process.execPath,
  ['--import', 'tsx', join(repoRoot, 'scripts/test.ts'), ...process.argv.slice(2)],
  {
    cwd: repoRoot,
    stdio: ['ignore', 2, 2],
  },
);
const timer = setInterval(sample, 500);
const t0 = performance.now();
await new Promise((resolve) => child.on('close', resolve));
clearInterval(timer);
sample();

const byPid = new Map<number, Proc[]>();
for (const p of procs.values()) byPid.set(p.pid, [...(byPid.get(p.pid) ?? []), p]);
const parentOf = (p: Proc) =>
  (byPid.get(p.ppid) ?? []).filter((q) => q.start <= p.start).sort((a, b) => b.start - a.start)[0];
/** The test file a process of the run descends from, '(the runners)' for the runners themselves, null outside the run. */
function fileOf(p: Proc): string | null {
  let file: string | null = null;
  for (let q: Proc | undefined = p, depth = 0; q && depth < 40; q = parentOf(q), depth++) {
    const files = q.cmd.match(TEST_MODULE);
    if (!file && files?.length === 1)
      file = files[0].replace(`${repoRoot}/`, '').replace(/^dist\/tests\/(.*\.test)\.js$/, '$1.ts');
    if (q.pid === child.pid) return file ?? '(the runners)';
  }
  return null;
}

const rows = new Map<string, Map<string, number>>();
// how many browsers (Chromium's main process: no --type=) and services a file started: a start's cost is paid again
// each time, so these say what sharing one would save
const starts = new Map<string, { browsers: number; services: number }>();
for (const p of procs.values()) {
  const file = fileOf(p);
  if (file === null) continue;
  const k = kind(p);
  const split = rows.get(file) ?? new Map<string, number>();
  split.set(k, (split.get(k) ?? 0) + p.cpu);
  rows.set(file, split);
  const n = starts.get(file) ?? { browsers: 0, services: 0 };
  if (k === 'chromium browser' && /chrom/i.test(p.comm)) n.browsers++;
  if (k === 'service') n.services++;
  starts.set(file, n);
}
const total = (m: Map<string, number>) => [...m.values()].reduce((a, b) => a + b, 0);
const sorted = [...rows].sort((a, b) => total(b[1]) - total(a[1]));
const all = sorted.reduce((s, [, m]) => s + total(m), 0);
console.log(`wall ${((performance.now() - t0) / 1000).toFixed(0)} s, CPU seen ${all.toFixed(0)} s`);
const byKind = new Map<string, number>();
for (const [, m] of sorted) for (const [k, s] of m) byKind.set(k, (byKind.get(k) ?? 0) + s);
console.log(
  `by kind: ${[...byKind]
    .sort((a, b) => b[1] - a[1])
    .map(([k, s]) => `${k} ${s.toFixed(0)}`)
    .join(', ')}`,
);
for (const [file, m] of sorted) {
  const parts = [...m].sort((a, b) => b[1] - a[1]).filter(([, s]) => s >= 0.5);
  const n = starts.get(file);
  console.log(
    `${total(m).toFixed(1).padStart(7)}  ${file}  ${parts.map(([k, s]) => `${k} ${s.toFixed(0)}`).join(', ')}` +
      `  (browsers ${n?.browsers ?? 0}, services ${n?.services ?? 0})`,
  );
}
process.exitCode = (child.exitCode ?? 1) === 0 ? 0 : 1;
