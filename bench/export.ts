// Export benchmark: median time of svgToGlb on the plinken SVG (the one plinken-svg.cm extrudes) and of
// vectorizeImage on the hand-drawn gallery image (handdrawn.cm's parameters), plus the .glb it feeds.
// Run: npx tsx bench/export.ts [--runs N]   (needs ../shared/examples beside the repository)
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { svgToGlb } from '../src/export/mesh.js';
import { vectorizeImage } from '../src/export/vectorize.js';
import { decodeRaster } from '../src/export/raster.js';
import { examplesDir } from '../test/helpers/shared.js';

const runsArg = process.argv.indexOf('--runs');
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 9;
const WARMUP = 20;

if (!existsSync(examplesDir)) {
  console.error(`no example corpus at ${examplesDir}`);
  process.exit(1);
}
const plinken = /"""(<svg[\s\S]*?<\/svg>)"""/.exec(readFileSync(join(examplesDir, 'plinken-svg.cm'), 'utf8'))![1]!;
const handdrawn = readFileSync(join(examplesDir, 'img', 'handdrawn.jpg'));
const traced = vectorizeImage(handdrawn, { strokeWidth: 8, simplify: 2, bridge: 5, stitch: 110 });

/** Median wall time of `f` over RUNS runs, after WARMUP runs (the JIT needs about 20 to settle), and the
 *  size of what it returned. */
function time(f: () => { length: number }): { ms: number; bytes: number } {
  const bytes = f().length;
  for (let i = 1; i < WARMUP; i++) f();
  const ts: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now();
    f();
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  return { ms: ts[Math.floor(ts.length / 2)]!, bytes };
}

const rows: [string, { ms: number; bytes: number }][] = [
  ['svgToGlb(plinken, defaults)', time(() => svgToGlb(plinken))],
  ['svgToGlb(plinken, depth 80 size 820)', time(() => svgToGlb(plinken, { depth: 80, size: 820 }))],
  ['svgToGlb(plinken, round 1)', time(() => svgToGlb(plinken, { round: 1 }))],
  [
    'vectorizeImage(handdrawn.jpg, handdrawn.cm params)',
    time(() => vectorizeImage(handdrawn, { strokeWidth: 8, simplify: 2, bridge: 5, stitch: 110 })),
  ],
  ['vectorizeImage(handdrawn.jpg, defaults)', time(() => vectorizeImage(handdrawn))],
  ['decodeRaster(handdrawn.jpg) alone (jpeg-js, 1080²)', time(() => decodeRaster(handdrawn, 40e6).data)],
  [
    'svgToGlb(traced handdrawn, depth 70 size 780 round 10)',
    time(() => svgToGlb(traced, { depth: 70, size: 780, round: 10 })),
  ],
];
const w = Math.max(...rows.map(([n]) => n.length));
console.log(`${'operation'.padEnd(w)}  median ms  output bytes   (${RUNS} runs)`);
for (const [name, r] of rows)
  console.log(`${name.padEnd(w)}  ${r.ms.toFixed(1).padStart(9)}  ${String(r.bytes).padStart(12)}`);
