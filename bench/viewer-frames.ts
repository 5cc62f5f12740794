// npx tsx bench/viewer-frames.ts: the viewer benchmark. For every example in ../shared/examples/*.cm (square ones at
// 1080x1080, the rest at 1920x1080) it drives the real page (headless Chromium, SwiftShader WebGL) and prints, per
// frame t = 0 and 1.5, the median in-page time of draw(value) + pixels() over a few runs and the SHA-256 of the raw
// RGBA pixels (cmViewer.pixels()). The hashes are the no-pixel-change oracle for viewer optimisations: they must
// be identical before and after, and across runs.
//
//   npx tsx bench/viewer-frames.ts [--runs 3] [--only lava-lamp,homepage] [--times 0,1.5]
//                                  [--against DIR]... [--save-build DIR] [--hashes FILE] [--check FILE] [--shot]
//
// --against DIR   also bench a saved viewer build (a dist/viewer-like directory with the same page API), interleaved
//                 with the current source in the same run (the machine is shared: compare only within one run), and
//                 print ratios.
// --save-build D  copy the build of the current source to D (to compare later changes against it).
// --hashes FILE   write {"name@t": sha256} of the current source's frames.
// --check FILE    exit 1 unless every hash of the current source equals the one in FILE.
// --shot          also time page.screenshot({clip}) of the canvas after the draw (the old frame path).
//
// Timing: each run loads the job fresh (the first draw, t = 0, is waited for untimed), then draws 1.5 and 0 in turn
// (values evaluated here in Node, outside the timing) and times each draw together with pixels() in the page
// (pixels() waits for SwiftShader to finish the frame). A scene whose tree is the same at both times is not drawn
// again (the key is its JSON): such frames are shown as "skip". "gpu cpu" is the CPU time Chromium's GPU process
// (where SwiftShader rasterises) spent during the timed draw + pixels(), summed over its threads: less sensitive to
// other load on the machine than the wall time.
import type { Page } from 'playwright-core';
import { createHash } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { compile, type Program } from '../src/lang/index.js';
import { launchForGl } from '../src/render/chromium.js';
import { parseGlSetting } from '../src/contract/hardware.js';
import { buildViewer } from '../scripts/build-viewer.js';
import { openViewerFrom } from '../test/viewer/helper.js';
import { examplesDir as EXAMPLES } from '../test/helpers/shared.js';

const SQUARE = new Set(['plinken-svg', 'handdrawn']);

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    only: { type: 'string' },
    times: { type: 'string', default: '0,1.5' },
    against: { type: 'string', multiple: true, default: [] },
    'save-build': { type: 'string' },
    hashes: { type: 'string' },
    check: { type: 'string' },
    shot: { type: 'boolean', default: false },
  },
});
const RUNS = Math.max(1, Number(args.runs));
const TIMES = args.times!.split(',').map(Number);

/** Bundle the current viewer source into a fresh directory. */
async function buildCurrent(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'cm-viewer-bench-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  return buildViewer(dir);
}

interface Sample {
  ms: number;
  cpuMs: number;
  drawn: boolean;
  hash: string;
  shotMs: number | null;
}

/** Chromium's GPU process (SwiftShader runs there); its CPU time is a load-robust measure of the draw's work. */
let gpuPid: number | null = null;
function findGpuPid(rootPid: number): number | null {
  const parent = new Map<number, number>();
  const gpu: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=gpu-process')) gpu.push(Number(d));
    } catch {
      /* gone */
    }
  }
  for (const pid of gpu) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p)) if (p === rootPid) return pid;
  }
  return null;
}
/** CPU time (ms) of every thread of the GPU process so far (sum of /proc/PID/task/TID/schedstat run times). */
function gpuCpuMs(): number {
  if (gpuPid === null) return NaN;
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${gpuPid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${gpuPid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* thread ended */
      }
    }
  } catch {
    return NaN;
  }
  return ns / 1e6;
}

async function frame(page: Page, program: Program, t: number, w: number, h: number): Promise<Sample> {
  const json = JSON.stringify(program.sceneAt(t).value);
  const c0 = gpuCpuMs();
  const r = await page.evaluate(async (j) => {
    const v = (window as any).cmViewer;
    const value = JSON.parse(j);
    const t0 = performance.now();
    const d = await v.draw(value, j);
    if (!d.ok) throw new Error(d.error.message);
    const px = v.pixels() as Uint8Array;
    const ms = performance.now() - t0;
    return { ms, drawn: d.changed as boolean, n: px.length };
  }, json);
  const cpuMs = gpuCpuMs() - c0;
  let shotMs: number | null = null;
  if (args.shot) {
    const t0 = performance.now();
    await page.screenshot({ type: 'png', clip: { x: 0, y: 0, width: w, height: h } });
    shotMs = performance.now() - t0;
  }
  // the hash is taken outside the timing (the 8 MB transfer through page.evaluate is slow)
  const data = await page.evaluate(() => (window as any).cmViewer.pixels() as Uint8Array);
  const bytes = new Uint8Array(data as unknown as ArrayLike<number>);
  if (bytes.length !== w * h * 4 || r.n !== bytes.length)
    throw new Error(`pixels(): ${bytes.length} bytes for ${w}x${h}`);
  return { ms: r.ms, cpuMs, drawn: r.drawn, hash: createHash('sha256').update(bytes).digest('hex'), shotMs };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const current = await buildCurrent();
if (args['save-build']) {
  mkdirSync(args['save-build'], { recursive: true });
  cpSync(current, args['save-build'], { recursive: true });
}
const builds: { label: string; dir: string }[] = [
  ...args.against!.map((d) => ({ label: basename(resolve(d)), dir: resolve(d) })),
  { label: 'current', dir: current },
];

const names = readdirSync(EXAMPLES)
  .filter((f) => f.endsWith('.cm'))
  .map((f) => basename(f, '.cm'))
  .filter((n) => !args.only || args.only.split(',').includes(n))
  .sort();

const { browser } = await launchForGl(parseGlSetting(process.env.RENDER_GL));
const pages = new Map<string, Page>();
for (const b of builds) pages.set(b.label, await openViewerFrom(browser, b.dir, 1920, 1080));
gpuPid = findGpuPid(process.pid); // exists once a page has a WebGL context
if (gpuPid === null) console.error('GPU process not found: no CPU column');

// samples[build][name@t] = Sample[]
const samples = new Map<string, Map<string, Sample[]>>();
for (const b of builds) samples.set(b.label, new Map());
const loadMs = new Map<string, number[]>();

for (const name of names) {
  const compiled = compile(readFileSync(join(EXAMPLES, `${name}.cm`), 'utf8'));
  if (!compiled.program) throw new Error(`${name}: does not compile`);
  const program = compiled.program;
  const first = JSON.stringify(program.sceneAt(0).value);
  const [w, h] = SQUARE.has(name) ? [1080, 1080] : [1920, 1080];
  const order = [...TIMES].sort((a, b) => b - a); // 1.5 first: the load has just drawn t = 0
  for (let run = 0; run < RUNS; run++) {
    // alternate which build goes first, so the machine's load drifts hit both alike
    const seq = run % 2 ? [...builds].reverse() : builds;
    for (const b of seq) {
      const page = pages.get(b.label)!;
      const l0 = performance.now();
      // the job's first draw (t = 0, images loaded); pixels() waits for SwiftShader to finish it, so that the
      // first timed draw does not pay for it
      const res = await page.evaluate(
        async ({ job, first }) => {
          const v = (window as any).cmViewer;
          const r = await v.load(job);
          if (!r.ok) return r;
          const d = await v.draw(JSON.parse(first), first);
          if (d.ok) v.pixels();
          return d;
        },
        { job: { width: w, height: h, runner: program.runner }, first },
      );
      const lk = `${b.label}|${name}`;
      loadMs.set(lk, [...(loadMs.get(lk) ?? []), performance.now() - l0]);
      if (!res.ok) throw new Error(`${b.label} ${name}: load failed: ${res.error.message}`);
      for (const t of order) {
        const s = await frame(page, program, t, w, h);
        const key = `${name}@${t.toFixed(1)}`;
        const m = samples.get(b.label)!;
        m.set(key, [...(m.get(key) ?? []), s]);
      }
    }
  }
}
await browser.close();

// ---- report ----
const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(0).padStart(6) : '     -');
const keys = [...samples.get('current')!.keys()];
let ok = true;
const header = [
  'frame'.padEnd(32),
  ...builds.flatMap((b) => [
    `${b.label} ms`.padStart(14),
    'gpu cpu'.padStart(8),
    ...(args.shot ? [`shot ms`.padStart(8)] : []),
  ]),
  ...builds.slice(0, -1).flatMap((b) => [`cur/${b.label}`.padStart(12), 'cpu ratio'.padStart(10)]),
  '  sha256 (current)',
];
console.log(header.join(' '));
const curHashes: Record<string, string> = {};
for (const key of keys) {
  const row: string[] = [key.padEnd(32)];
  const med: number[] = [];
  const cpu: number[] = [];
  const cur = samples.get('current')!.get(key)!;
  const curHash = cur[0].hash;
  curHashes[key] = curHash;
  for (const b of builds) {
    const ss = samples.get(b.label)!.get(key)!;
    const drawn = ss.filter((s) => s.drawn);
    const m = median(drawn.map((s) => s.ms));
    med.push(m);
    cpu.push(median(drawn.map((s) => s.cpuMs)));
    row.push(drawn.length ? fmt(m).padStart(14) : 'skip'.padStart(14));
    row.push(fmt(cpu[cpu.length - 1]).padStart(8));
    if (args.shot) row.push(fmt(median(ss.map((s) => s.shotMs ?? NaN))).padStart(8));
    const hs = new Set(ss.map((s) => s.hash));
    if (hs.size !== 1) {
      ok = false;
      console.error(`NONDETERMINISTIC ${b.label} ${key}: ${[...hs].join(' ')}`);
    }
    if (!hs.has(curHash) || hs.size !== 1) {
      ok = false;
      console.error(`HASH DIFFERS ${b.label} ${key}: ${[...hs].join(' ')} vs current ${curHash}`);
    }
  }
  for (let i = 0; i < builds.length - 1; i++) {
    row.push(
      (med[builds.length - 1] / med[i]).toFixed(2).padStart(12),
      (cpu[builds.length - 1] / cpu[i]).toFixed(2).padStart(10),
    );
  }
  row.push('  ' + curHash);
  console.log(row.join(' '));
}
console.log('\nmedian load() + first draw ms (images + first draw):');
for (const name of names)
  console.log(
    '  ' +
      name.padEnd(30) +
      builds.map((b) => `${b.label} ${fmt(median(loadMs.get(`${b.label}|${name}`) ?? []))}`).join('  '),
  );
if (args.hashes) writeFileSync(args.hashes, JSON.stringify(curHashes, null, 2) + '\n');
if (args.check) {
  const want = JSON.parse(readFileSync(args.check, 'utf8')) as Record<string, string>;
  for (const [k, v] of Object.entries(want)) {
    if (curHashes[k] === undefined) continue; // not run (--only)
    if (curHashes[k] !== v) {
      ok = false;
      console.error(`HASH CHANGED ${k}: ${curHashes[k]} (was ${v})`);
    }
  }
  console.log(ok ? `hashes: all ${Object.keys(curHashes).length} equal to ${args.check}` : 'hashes: CHANGED');
}
process.exit(ok ? 0 : 1);
