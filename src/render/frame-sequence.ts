// The frames of a clip, each time evaluated once in Node and each distinct value drawn once by the page.
// Consecutive frames whose values are equal (same JSON) share one picture: the sequence yields it with a repeat
// count. Pipelined: while the consumer converts and writes a picture, the page already draws the next one.
import { evaluateAt, type EvaluatedFrame, type Plan } from './prepare.js';
import type { ViewerPage } from './page/viewer-page.js';
import type { PixelFormat } from './page/draw-script.js';
import { assetFailure } from './job-assets.js';
import { JobFailure } from './types.js';
import type { StageClock } from './stage-times.js';

export interface Picture {
  /** RGBA or I420 (the sequence's format), top row first */
  pixels: Buffer;
  /** index of its first frame */
  first: number;
  /** how many consecutive frames show it */
  count: number;
}

export interface SequenceStats {
  /** per-stage sums: evaluate, and the page's draw, read, pack, transfer and decode */
  clock: StageClock;
  /** time spent waiting for the page (draw, read back, transfer, decode) not hidden behind the consumer */
  drawMs: number;
  drawn: number;
}

/** Yield to the event loop at least this often: a long run of equal frames must not hold the API. */
const YIELD_EVERY_MS = 15;

export class Aborted extends Error {
  constructor() {
    super('aborted');
  }
}

/** Draws one evaluated value in the page; an error from the page becomes the job's failure. */
export async function drawFrame(
  page: ViewerPage,
  plan: Plan,
  source: string,
  frame: EvaluatedFrame,
  previous: Buffer | null,
  clock?: StageClock,
  format: PixelFormat = 'rgba',
): Promise<Buffer> {
  const r = await page.draw(frame.json, plan.width, plan.height, clock, format);
  if ('pixels' in r) return r.pixels;
  if ('unchanged' in r) {
    if (previous) return previous;
    throw new JobFailure('render failed: the page reported an unchanged first frame', null);
  }
  if (r.error.code === 'ASS001' && r.error.path) throw assetFailure(source, r.error.path, `image "${r.error.path}" could not be loaded`);
  throw new JobFailure(`render failed: ${r.error.message}`, null);
}

export async function* frameSequence(
  plan: Plan,
  page: ViewerPage,
  source: string,
  signal: AbortSignal,
  stats: SequenceStats,
  format: PixelFormat = 'rgba',
): AsyncGenerator<Picture> {
  let lastYield = performance.now();
  const evaluate = (i: number): EvaluatedFrame => {
    const t0 = performance.now();
    const f = i === 0 ? plan.first : evaluateAt(plan.program, i / plan.fps);
    stats.clock.add('evaluate', performance.now() - t0);
    return f;
  };
  const startDraw = (f: EvaluatedFrame, previous: Buffer | null) => {
    plan.assets.check(f.value); // only values that get drawn: a repeat uses no new image
    stats.drawn++;
    const p = drawFrame(page, plan, source, f, previous, stats.clock, format);
    p.catch(() => {}); // awaited below; a failure while the consumer still writes must not go unhandled
    return p;
  };

  let cur = evaluate(0);
  let drawing = startDraw(cur, null);
  let i = 0;
  while (i < plan.frames) {
    if (signal.aborted) throw new Aborted();
    const w0 = performance.now();
    const pixels = await drawing;
    stats.drawMs += performance.now() - w0;
    let j = i + 1;
    let next: EvaluatedFrame | null = null;
    for (; j < plan.frames; j++) {
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
        if (signal.aborted) throw new Aborted();
      }
      const f = evaluate(j);
      if (f.json !== cur.json) {
        next = f;
        break;
      }
    }
    if (next) drawing = startDraw(next, pixels);
    yield { pixels, first: i, count: j - i };
    lastYield = performance.now();
    i = j;
    if (next) cur = next;
  }
}
