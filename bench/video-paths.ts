// npx tsx bench/video-paths.ts: the ways a video's frames have left the page, in one run, alternating, each on its
// own warm renderer, on the same job (homepage, or BENCH_SOURCE=<example name>; 2 s 30 fps at 1920x1080 unless
// BENCH_SIZE=WxH; our own glyphs-3d.cm when ../shared is absent):
//   rgba, 1 page   RGBA read back, converted to I420 in Node (before issue 11)
//   i420, 1 page   I420 converted in the page, in JavaScript, after a plain read back (issue 11)
//   i420, 2 pages  the same, two pages drawing alternate frames (issue 11, second step)
//   + partial      the same, each page redrawing and sending only what changed since its previous frame (the default
//                  with 2 pages; with 1 page, each frame's change is from the frame before it)
// All give the same MP4 bytes (checked here too). Prints the median wall time, the ratio to the first, and
// the last run's stage sums. BENCH_RUNS (default 3) runs per side.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ChromiumRenderer } from '../src/render/chromium-renderer.js';
import { defaultChromiumPath } from '../src/render/chromium.js';
import { STAGES } from '../src/render/stage-times.js';
import type { RenderTimings } from '../src/render/renderer-port.js';
import { examplesDir, hasCorpus, ownExamplesDir } from '../test/helpers/shared.js';

const name = process.env.BENCH_SOURCE ?? (hasCorpus ? 'homepage' : 'glyphs-3d');
const [width, height] = (process.env.BENCH_SIZE ?? '1920x1080').split('x').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const source = readFileSync(join(hasCorpus ? examplesDir : ownExamplesDir, `${name}.cm`), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'cmrender-video-paths-'));
const log = pino({ level: 'warn' });
const variants = [
  { label: 'rgba, 1 page', videoReadback: 'rgba', videoPages: 1, partialRedraw: false },
  { label: 'i420, 1 page', videoReadback: 'i420', videoPages: 1, partialRedraw: false },
  { label: 'i420, 2 pages', videoReadback: 'i420', videoPages: 2, partialRedraw: false },
  { label: 'i420, 1 page, partial redraw', videoReadback: 'i420', videoPages: 1, partialRedraw: true },
  { label: 'i420, 2 pages, partial redraw', videoReadback: 'i420', videoPages: 2, partialRedraw: true },
] as const;
const sides = variants.map((v) => ({
  ...v,
  renderer: new ChromiumRenderer({ chromiumPath: defaultChromiumPath(), log, ...v }),
  times: [] as number[],
  last: null as RenderTimings | null,
  hash: '',
}));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
try {
  for (const s of sides) await s.renderer.start();
  const job = (id: string) => ({
    id,
    kind: 'video' as const,
    source,
    params: { width, height, duration: 2, fps: 30 },
    assets: {},
    outPath: join(dir, `${id}.mp4`),
  });
  const hooks = { signal: new AbortController().signal };
  for (const [k, s] of sides.entries()) await s.renderer.render(job(`warm-${k}`), hooks);
  for (let run = 0; run < RUNS; run++) {
    // a different order each run, so no side always follows the same one
    const order = sides.map((_, k) => (k + run) % sides.length);
    for (const k of order) {
      const s = sides[k];
      const t0 = performance.now();
      s.last = (await s.renderer.render(job(`${k}-${run}`), hooks)).timings;
      s.times.push(performance.now() - t0);
      s.hash = createHash('sha256')
        .update(readFileSync(join(dir, `${k}-${run}.mp4`)))
        .digest('hex');
    }
  }
  const base = median(sides[0].times);
  console.log(`\n${name} 2 s 30 fps ${width}x${height}, ${RUNS} runs each, in turn\n`);
  console.log('| frames leave the page as | median s | ms per frame | ratio to the first |');
  console.log('|---|---|---|---|');
  for (const s of sides) {
    const m = median(s.times);
    console.log(`| ${s.label} | ${(m / 1000).toFixed(2)} | ${(m / 60).toFixed(0)} | x${(base / m).toFixed(2)} |`);
  }
  const same = sides.every((s) => s.hash === sides[0].hash);
  console.log(`\nsame MP4 bytes on every side: ${same ? 'yes' : 'NO'}\n`);
  console.log(`| side | ${STAGES.join(' | ')} | wait |`);
  console.log(`|---|${STAGES.map(() => '---').join('|')}|---|`);
  for (const s of sides)
    console.log(
      `| ${s.label} | ${STAGES.map((st) => (s.last?.[`${st}_ms`] ?? 0).toFixed(0)).join(' | ')} | ${s.last?.render_ms.toFixed(0)} |`,
    );
  if (!same) process.exitCode = 1;
} finally {
  for (const s of sides) await s.renderer.close();
  rmSync(dir, { recursive: true, force: true });
}
