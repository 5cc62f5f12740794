// The frames of a clip, each time evaluated once in Node and each distinct value drawn once by the page.
// Consecutive frames whose values are equal (same JSON) share one picture: the sequence yields it with a repeat
// count. Pipelined: while the consumer converts and writes a picture, the page already draws the next one, and with
// two pages one draws while the other's picture is read back and moved out (software WebGL leaves a core idle).
import { checkWorkBudget, type EvaluatedFrame, type PlanInfo } from './prepare.js';
import type { ViewerPage } from './page/viewer-page.js';
import type { PixelFormat } from './page/draw-script.js';
import { assetFailure } from './job-assets.js';
import { patchPicture } from './picture-patch.js';
import { JobFailure } from './renderer-port.js';
import { pageFailure as pageEnd } from './failure-reasons.js';
import { LIMITS } from '../contract/limits.js';
import { CODE } from '../contract/error-codes.js';
import type { StageClock } from './stage-times.js';
import type { FrameRange } from '../contract/chunks.js';

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

/**
 * Where a sequence's frames come from: frame i of the clip (its time i / fps), asked in increasing order. The
 * renderer's is a worker thread's (eval-thread.ts), so no evaluation holds the event loop.
 */
export interface FrameSource {
  at(i: number): Promise<EvaluatedFrame>;
}

export class Aborted extends Error {
  constructor() {
    super('aborted');
  }
}

/** How the pages draw and hand over a sequence's pictures. */
export interface DrawOptions {
  /** the pictures' format (default RGBA) */
  format?: PixelFormat;
  /** one draw longer than this ends the job with frame_budget (default LIMITS.frameDrawMs) */
  budgetMs?: number;
  /**
   * let a page send only the part of a frame that differs from its previous picture (default true); off draws and
   * sends every picture whole (the same bytes: kept for the bench and the tests)
   */
  partial?: boolean;
  clock?: StageClock;
}

/**
 * Draws one evaluated value in the page; an error from the page becomes the job's failure. `previous` is the
 * picture this page drew last for the same job (null: none), so the page may send only what changed since.
 */
export async function drawFrame(
  page: ViewerPage,
  plan: PlanInfo,
  source: string,
  frame: EvaluatedFrame,
  previous: Buffer | null,
  { format = 'rgba', budgetMs = LIMITS.frameDrawMs, partial = true, clock }: DrawOptions = {},
): Promise<Buffer> {
  let timer: NodeJS.Timeout | undefined;
  const overBudget = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      // closing the page stops its draw; the job fails with the budget's reason, not the page's
      void page.close();
      reject(
        new JobFailure(
          `render failed: one frame took over ${budgetMs / 1000} s to draw (the per-frame budget, FRAME_BUDGET_MS)`,
          CODE.frame_budget,
        ),
      );
    }, budgetMs);
  });
  overBudget.catch(() => {});
  const r = await Promise.race([
    page.draw(frame.json, plan.width, plan.height, clock, format, partial && previous !== null),
    overBudget,
  ]).finally(() => clearTimeout(timer));
  if ('pixels' in r) return r.pixels;
  if ('patch' in r) {
    if (previous) return patchPicture(previous, r.patch, format, plan.width, plan.height);
    throw new JobFailure('render failed: the page sent part of a frame with no picture to patch', CODE.internal_error);
  }
  if ('unchanged' in r) {
    if (previous) return previous;
    throw new JobFailure('render failed: the page reported an unchanged first frame', CODE.internal_error);
  }
  if (r.error.code === 'ASS001' && r.error.path)
    throw assetFailure(source, r.error.path, `image "${r.error.path}" could not be loaded`);
  throw pageFailure(r.error);
}

/**
 * The page's GL went away under it (a GPU process killed or crashed, a driver reset): not the job's fault. The
 * renderer replaces its pages (relaunching the browser if a fresh page cannot draw either) and tries the job once more.
 */
export class GlLost extends JobFailure {}

/** The failure for an error the page reported: GlLost for a lost context, else the page's plain reason. */
export function pageFailure(error: { code: string; message: string }): JobFailure {
  const end = pageEnd(error);
  return error.code === 'context_lost' ? new GlLost(end.message, end.code) : new JobFailure(end.message, end.code);
}

/** A run of consecutive frames with the same value: drawn once, shown `count` times from frame `first`. */
interface Run {
  frame: EvaluatedFrame;
  first: number;
  count: number;
}

/**
 * The clip's pictures in frame order. With several pages, consecutive runs are drawn by the pages in turn (run n on
 * page n mod pages.length), so one page draws while another reads back or its pixels cross the DevTools protocol;
 * each page keeps its own "unchanged" key and last picture, and the pictures are yielded in frame order. Every
 * page draws with the same code from the same values, so the bytes do not depend on the number of pages.
 */
export async function* frameSequence(
  plan: PlanInfo,
  frames: FrameSource,
  pages: readonly ViewerPage[],
  source: string,
  signal: AbortSignal,
  stats: SequenceStats,
  options: Omit<DrawOptions, 'clock'> = {},
  range: FrameRange = { from: 0, to: plan.frames },
): AsyncGenerator<Picture> {
  let lastYield = performance.now();
  // a chunk (range) is drawn as if it were a clip of its own: its first frame is evaluated and drawn whatever the
  // frame before the cut showed, so a repeat never crosses a chunk boundary and any worker gives the same pixels
  const end = range.to;
  // a scene that reads no time signal is the same picture at every time: one evaluation, one draw
  const timeFree = plan.first.timeFree;
  let nodes = range.from === 0 ? plan.first.nodes : 0;
  // a chunk spends its share of the job's work budget (the same share in every process, so the same jobs fail)
  const share = plan.frames / Math.max(1, range.to - range.from);
  const evaluate = async (i: number): Promise<EvaluatedFrame> => {
    if (i === 0 || timeFree) return plan.first;
    const t0 = performance.now();
    const f = await frames.at(i);
    // the time spent waiting for the evaluating thread (it evaluates ahead while the pages draw)
    stats.clock.add('evaluate', performance.now() - t0);
    // the estimate at prepare() came from the first frame; a scene that grows later is stopped here
    nodes += f.nodes;
    checkWorkBudget(nodes * share, plan.frames);
    return f;
  };

  // the next run: its frame, and how many frames after it show the same value
  let scanAt = range.from;
  let scanFrame: EvaluatedFrame | null = await evaluate(range.from);
  const nextRun = async (): Promise<Run | null> => {
    if (!scanFrame) return null;
    const frame = scanFrame;
    const first = scanAt;
    let j = first + 1;
    scanFrame = null;
    if (timeFree) j = end;
    for (; j < end; j++) {
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        await new Promise((r) => setImmediate(r));
        lastYield = performance.now();
        if (signal.aborted) throw new Aborted();
      }
      const f = await evaluate(j);
      if (f.json !== frame.json) {
        scanFrame = f;
        break;
      }
    }
    scanAt = j;
    return { frame, first, count: j - first };
  };

  // each page's last draw: the next one on that page waits for it (and shows its picture again if unchanged)
  const lastOnPage: Promise<Buffer | null>[] = pages.map(() => Promise.resolve(null));
  let started = 0;
  const startDraw = (run: Run): Promise<Buffer> => {
    plan.assets.check(run.frame.images); // only values that get drawn: a repeat uses no new image
    stats.drawn++;
    const k = started++ % pages.length;
    const p = lastOnPage[k].then((previous) =>
      drawFrame(pages[k], plan, source, run.frame, previous, { ...options, clock: stats.clock }),
    );
    lastOnPage[k] = p.catch(() => null);
    p.catch(() => {}); // awaited below; a failure while the consumer still writes must not go unhandled
    return p;
  };

  const inFlight: { run: Run; pixels: Promise<Buffer> }[] = [];
  const fill = async () => {
    while (inFlight.length < pages.length) {
      const run = await nextRun();
      if (!run) return;
      inFlight.push({ run, pixels: startDraw(run) });
    }
  };
  await fill();
  while (inFlight.length > 0) {
    if (signal.aborted) throw new Aborted();
    const { run, pixels: drawing } = inFlight.shift()!;
    const w0 = performance.now();
    const pixels = await drawing;
    stats.drawMs += performance.now() - w0;
    await fill(); // the freed page starts the next run before the consumer takes this picture
    yield { pixels, first: run.first, count: run.count };
    lastYield = performance.now();
  }
}
