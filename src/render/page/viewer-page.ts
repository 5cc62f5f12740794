// A Chromium page with the drawing page loaded, leased to one job at a time: load a job's canvas, draw values. The
// page API answers its own errors as values ({code, message}), so a call that rejects is a page (or its browser)
// that could not answer: it leaves here as page_crashed, Playwright's words kept for the log.
import type { BrowserContext, Page } from 'playwright-core';
import { CODE } from '../../contract/error-codes.js';
import { StageFault } from '../failure-reasons.js';
import type { DrawError, LoadOptions, LoadResult } from '../../../viewer/src/page-api.js';
import { decodeRle, pictureBytes, type PixelFormat } from './draw-script.js';
import type { Patch } from '../picture-patch.js';
import type { StageClock } from '../stage-times.js';

export type { DrawError };

/**
 * One drawn frame: its picture (RGBA or I420, top row first), or only the rectangle of it that differs from the
 * page's previous picture, or the previous picture again, or the page's error.
 */
export type Drawn = { pixels: Buffer } | { patch: Patch } | { unchanged: true } | { error: DrawError };

export class ViewerPage {
  /** URL path -> asset file, for the job holding the lease */
  assets = new Map<string, string>();
  servedAssets = false;
  closed = false;
  /** its renderer process died (crash, killed, out of memory) */
  crashed = false;

  constructor(
    readonly context: BrowserContext,
    readonly page: Page,
  ) {}

  load(options: LoadOptions): Promise<LoadResult> {
    return answered(this.page.evaluate((o) => window.cmViewer.load(o), options));
  }

  /**
   * Draws one value given as its JSON text (the text is also the page's key for "unchanged") and reads it back in
   * the given format (a video takes I420, converted in the page). With `partial` (the caller holds the picture this
   * page drew last), a frame the page drew only in part comes back as a patch. With a clock, adds
   * the page's draw, read and pack times, the transfer (the round trip less the page's work) and the decode.
   */
  async draw(
    json: string,
    width: number,
    height: number,
    clock?: StageClock,
    format: PixelFormat = 'rgba',
    partial = false,
  ): Promise<Drawn> {
    const t0 = performance.now();
    type DrawFn = { __cmrDraw(j: string, f: PixelFormat, p: boolean): Promise<unknown> };
    type Reply = { px: Uint8Array; rect: [number, number, number, number] | null; t: [number, number, number] };
    const r = (await answered(
      this.page.evaluate(([j, f, p]) => (window as unknown as DrawFn).__cmrDraw(j, f, p), [
        json,
        format,
        partial,
      ] as const),
    )) as Reply | null | { error: DrawError };
    const t1 = performance.now();
    if (r === null) return { unchanged: true };
    if ('error' in r) return { error: r.error };
    const [x, y, w, h] = r.rect ?? [0, 0, width, height];
    const pixels = decodeRle(r.px, pictureBytes(format, w, h));
    if (clock) {
      const [draw, read, pack] = r.t;
      clock.add('draw', draw);
      clock.add('read', read);
      clock.add('pack', pack);
      clock.add('transfer', Math.max(0, t1 - t0 - draw - read - pack));
      clock.add('decode', performance.now() - t1);
    }
    return r.rect ? { patch: { x, y, width: w, height: h, pixels } } : { pixels };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => {});
  }
}

/** A page call's answer, or page_crashed when the page or its browser could not give one. */
export async function answered<T>(call: Promise<T>): Promise<T> {
  try {
    return await call;
  } catch (err) {
    throw pageCrashed(err);
  }
}

/** The page or its browser is gone (a crash, a kill, a lost connection): the job ends page_crashed. */
export function pageCrashed(err: unknown): StageFault {
  return new StageFault(CODE.page_crashed, err instanceof Error ? err.message : String(err), { cause: err });
}
