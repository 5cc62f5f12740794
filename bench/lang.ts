// Language benchmark: median parse+check+evaluate (compile) time per example and median
// sceneAt(t) time per frame. Run: npx tsx bench/lang.ts [--runs N]
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { compile } from '../src/lang/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = path.resolve(root, '..', 'shared', 'examples');
const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 200;
const FRAME_BUDGET_MS = 5;

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

let failed = false;
const rows: string[][] = [['example', 'compile ms', 'sceneAt ms', 'frames']];
for (const f of readdirSync(dir)
  .filter((x) => x.endsWith('.cm'))
  .sort()) {
  const src = readFileSync(path.join(dir, f), 'utf8');
  for (let i = 0; i < 20; i++) compile(src); // warm up
  const compileTimes: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    compile(src);
    compileTimes.push(performance.now() - t0);
  }
  const prog = compile(src).program!;
  const fps = 30;
  const frames = Math.max(1, Math.round(prog.durationSeconds * fps));
  const frameTimes: number[] = [];
  for (let r = 0; r < Math.max(1, Math.ceil(RUNS / frames)); r++)
    for (let i = 0; i < frames; i++) {
      const t0 = performance.now();
      prog.sceneAt(i / fps);
      frameTimes.push(performance.now() - t0);
    }
  const fm = median(frameTimes);
  if (f === 'plinken-svg.cm' && fm >= FRAME_BUDGET_MS) failed = true;
  rows.push([f, median(compileTimes).toFixed(3), fm.toFixed(3), String(frameTimes.length)]);
}
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const r of rows)
  console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  '));
console.log(`\nplinken-svg.cm sceneAt budget ${FRAME_BUDGET_MS} ms: ${failed ? 'EXCEEDED' : 'ok'}`);
if (failed) process.exitCode = 1;
