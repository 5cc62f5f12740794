// The test step of `npm test` (after scripts/checks.ts: lint, format, types and one build): every
// test/**/*.test.ts, in two groups that run at the same time.
//
// - System tests start real processes (Chromium, ffmpeg, Redis, a child service or CLI): SYSTEM_CONCURRENCY processes
//   at a time (default 2). Much of their time is waiting (a job limit, a retention window, a restart) or drawing flat
//   out until such a wait ends.
// - In-process tests (the language, geometry, schemas, HTTP against a fake renderer) fill that time: as many
//   processes at a time as there are cores beyond SYSTEM_CONCURRENCY, at least one, their output held until they end
//   so the two streams do not interleave.
//
// A file is a system test when its text names one of SYSTEM_MARKERS (scripts/lib/test-groups.ts). Both groups are
// Node's test runner over the tests transpiled to JavaScript first (scripts/lib/compile-tests.ts: plain node, not
// tsx, in every test process); the closing line adds them up.
//
// Files share processes (batchModules): each file's tests and hooks run in a suite named after it, one file after
// another. A process per file loaded the service's modules again for each, on 2 cores where the suite is CPU-bound:
// 81 in-process files took 148 CPU-seconds one process each and 85 s in one; 28 system files 189 s and 166 s. So a
// file leaves its process as it found it: no open handles after its last hook (a hook still waiting then fails the
// file), no changed environment or globals; one that looks at its own process's children runs alone
// (scripts/lib/test-groups.ts).
//
//   npx tsx scripts/test.ts [FILE_OR_DIR ...]     (default: test/)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../src/paths.js';
import { testGroups } from './lib/test-groups.js';
import { compiledPath, compileTests, TESTS_OUT } from './lib/compile-tests.js';

interface Counts {
  tests: number;
  pass: number;
  fail: number;
  skipped: number;
  todo: number;
  cancelled: number;
}

/**
 * Runs one group's modules (its batches and the files that run alone: batchModules) through Node's test runner, its
 * summary counted. Its output is passed through as it comes, or with `held`, kept and handed back whole (two groups
 * running at once do not interleave their lines).
 */
function runGroup(
  title: string,
  files: string[],
  concurrency: number,
  timesFile: string,
  held = false,
): Promise<{ code: number; counts: Counts; ms: number; output: string }> {
  const counts: Counts = { tests: 0, pass: 0, fail: 0, skipped: 0, todo: 0, cancelled: 0 };
  if (files.length === 0) return Promise.resolve({ code: 0, counts, ms: 0, output: '' });
  const t0 = performance.now();
  const head = `# ${title}\n`;
  let output = held ? head : '';
  if (!held) process.stdout.write(head);
  const child = spawn(
    process.execPath,
    [
      '--enable-source-maps',
      '--test',
      '--test-reporter=tap',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(repoRoot, 'scripts/lib/file-times.mjs')}`,
      `--test-reporter-destination=${timesFile}`,
      `--test-reporter=${join(repoRoot, 'scripts/lib/failures.mjs')}`,
      `--test-reporter-destination=${timesFile}.failures`,
      `--test-concurrency=${concurrency}`,
      ...files,
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let tail = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    if (held) output += d;
    else process.stdout.write(d);
    tail = (tail + d).slice(-4000);
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      for (const k of Object.keys(counts) as (keyof Counts)[]) {
        const m = new RegExp(`^# ${k} (\\d+)$`, 'm').exec(tail);
        if (m) counts[k] = Number(m[1]);
      }
      resolve({ code: code ?? 1, counts, ms: performance.now() - t0, output });
    });
  });
}

/**
 * A group's files as the modules its processes run: the files dealt round-robin into `n` batches, each a module that
 * imports its files one after another, each in a suite named after the file, so its top-level tests and hooks are the
 * suite's (a hook runs before or after that file's tests, as in a process of its own). Node builds every suite when
 * the batch starts, so what a file does at its top level rather than in a hook happens then. A file in `alone`
 * (test-groups.ts: it looks at its own process's children) runs in a process of its own.
 */
function batchModules(group: string, files: string[], alone: Set<string>, n: number): string[] {
  const shared = files.filter((f) => !alone.has(f));
  const batches = Array.from({ length: Math.min(n, shared.length) }, () => [] as string[]);
  shared.forEach((f, i) => batches[i % batches.length]!.push(f));
  const modules = batches.map((batch, i) => {
    const path = join(TESTS_OUT, `${group}-${i + 1}.batch.js`);
    const suites = batch.map(
      (f) =>
        `describe(${JSON.stringify(f)}, async () => {\n  await import(${JSON.stringify(pathToFileURL(compiledPath(f)).href)});\n});`,
    );
    writeFileSync(path, [`import { describe } from 'node:test';`, ...suites, ''].join('\n'));
    return path;
  });
  return [...modules, ...files.filter((f) => alone.has(f)).map(compiledPath)];
}

/** Every failed test of a group (failures.mjs's lines), printed last so a log that keeps only its tail names them. */
function printFailures(timesFile: string): number {
  let lines: string[];
  try {
    lines = readFileSync(`${timesFile}.failures`, 'utf8').split('\n').filter(Boolean);
  } catch {
    return 0;
  }
  for (const l of lines) {
    const f = JSON.parse(l) as { name: string; where: string; failureType: string; error: string };
    const where = f.where ? relative(repoRoot, f.where) : '(no file)';
    console.log(`# FAILED: ${f.name}\n#   at ${where} (${f.failureType})`);
    for (const e of f.error.split('\n')) console.log(`#     ${e}`);
  }
  return lines.length;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The slowest files of a group (file-times.mjs's lines), so a run says where its time went. */
function printSlowest(timesFile: string, group: string, n: number): void {
  let lines: string[];
  try {
    lines = readFileSync(timesFile, 'utf8').split('\n').filter(Boolean);
  } catch {
    return; // the group had no files
  }
  const rows = lines.map((l) => JSON.parse(l) as { file: string; ms: number; tests: number });
  rows.sort((x, y) => y.ms - x.ms);
  console.log(`# slowest ${group} files (s, their hooks included):`);
  for (const r of rows.slice(0, n))
    console.log(`#   ${(r.ms / 1000).toFixed(1).padStart(6)}  ${relative(repoRoot, r.file)} (${r.tests} tests)`);
}

{
  const args = process.argv.slice(2);
  const { inProcess, system, alone } = testGroups(args.length ? args : ['test']);
  const t0 = performance.now();
  await compileTests();
  const timesDir = mkdtempSync(join(tmpdir(), 'cmrender-test-times-'));
  // side by side: much of the system group's time is spent waiting (job limits, retention windows, restarts) or
  // drawing flat out until such a wait ends, so the in-process files fill it instead of running after it
  const systemConcurrency = Number(process.env.SYSTEM_CONCURRENCY ?? 2);
  const inProcessConcurrency = Math.max(1, availableParallelism() - systemConcurrency);
  const inProcessModules = batchModules('in-process', inProcess, alone, inProcessConcurrency);
  // more batches than processes at a time: a batch that ends early takes the next, so the two stay busy to the end
  const systemModules = batchModules('system', system, alone, 3 * systemConcurrency);
  const [a, b] = await Promise.all([
    runGroup(
      `in-process tests: ${inProcess.length} files in ${plural(inProcessModules.length, 'process', 'processes')}, ${inProcessConcurrency} at a time`,
      inProcessModules,
      inProcessConcurrency,
      join(timesDir, 'a'),
      system.length > 0,
    ),
    runGroup(
      `system tests: ${system.length} files in ${plural(systemModules.length, 'process', 'processes')}, ${systemConcurrency} at a time`,
      systemModules,
      systemConcurrency,
      join(timesDir, 'b'),
    ),
  ]);
  process.stdout.write(a.output);
  const t2 = performance.now();
  printSlowest(join(timesDir, 'a'), 'in-process', Number(process.env.TEST_SLOWEST ?? 5));
  printSlowest(join(timesDir, 'b'), 'system', Number(process.env.TEST_SLOWEST ?? 15));
  printFailures(join(timesDir, 'a'));
  printFailures(join(timesDir, 'b'));
  rmSync(timesDir, { recursive: true, force: true });
  const sum = (k: keyof Counts) => a.counts[k] + b.counts[k];
  console.log(
    `# in-process ${(a.ms / 1000).toFixed(0)} s (${a.counts.tests} tests), system ${(b.ms / 1000).toFixed(0)} s (${b.counts.tests} tests), both ${((t2 - t0) / 1000).toFixed(0)} s`,
  );
  // the plain closing line: both groups together
  console.log(`tests: ${sum('pass')} passed, ${sum('fail') + sum('cancelled')} failed, ${sum('skipped')} skipped`);
  process.exitCode = a.code || b.code ? 1 : 0;
}
