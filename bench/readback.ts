// npx tsx bench/readback.ts: the video read back before and after issue 11 in one run, alternating: frames read as
// RGBA and converted in Node ('rgba', the old path) against I420 converted on the GPU in the page ('i420'), on the
// same job (homepage, or BENCH_SOURCE=<example name>; 2 s 30 fps at 1920x1080 unless BENCH_SIZE=WxH), each side on
// its own warm renderer. Prints the median wall time per side, the ratio, and the last run's stage sums.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ChromiumRenderer } from '../src/render/renderer.js';
import { defaultChromiumPath } from '../src/render/chromium.js';
import { STAGES } from '../src/render/stage-times.js';
import type { RenderTimings } from '../src/render/types.js';
import { examplesDir } from '../test/helpers/shared.js';

const name = process.env.BENCH_SOURCE ?? 'homepage';
const [width, height] = (process.env.BENCH_SIZE ?? '1920x1080').split('x').map(Number);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const source = readFileSync(join(examplesDir, `${name}.cm`), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'cmrender-readback-'));
const log = pino({ level: 'warn' });
const sides = (['rgba', 'i420'] as const).map((videoReadback) => ({
  videoReadback,
  renderer: new ChromiumRenderer({ chromiumPath: defaultChromiumPath(), log, videoReadback }),
  times: [] as number[],
  last: null as RenderTimings | null,
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
  for (const s of sides) await s.renderer.render(job(`warm-${s.videoReadback}`), hooks);
  for (let run = 0; run < RUNS; run++) {
    for (const s of run % 2 ? [...sides].reverse() : sides) {
      const t0 = performance.now();
      s.last = (await s.renderer.render(job(`${s.videoReadback}-${run}`), hooks)).timings;
      s.times.push(performance.now() - t0);
    }
  }
  const [before, after] = sides;
  console.log(`\n${name} 2 s 30 fps ${width}x${height}, ${RUNS} runs each, alternating\n`);
  console.log('| read back | median s | ms per frame |');
  console.log('|---|---|---|');
  for (const s of sides)
    console.log(
      `| ${s.videoReadback} | ${(median(s.times) / 1000).toFixed(2)} | ${(median(s.times) / 60).toFixed(0)} |`,
    );
  console.log(`\nratio rgba / i420: x${(median(before.times) / median(after.times)).toFixed(2)}\n`);
  console.log(`| read back | ${STAGES.join(' | ')} | wait |`);
  console.log(`|---|${STAGES.map(() => '---').join('|')}|---|`);
  for (const s of sides)
    console.log(
      `| ${s.videoReadback} | ${STAGES.map((st) => (s.last?.[`${st}_ms`] ?? 0).toFixed(0)).join(' | ')} | ${s.last?.render_ms.toFixed(0)} |`,
    );
} finally {
  for (const s of sides) await s.renderer.close();
  rmSync(dir, { recursive: true, force: true });
}
