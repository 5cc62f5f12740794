// A Chromium page with the drawing page loaded, leased to one job at a time: load a job's canvas, draw values.
import type { BrowserContext, Page } from 'playwright-core';
import type { DrawError, LoadOptions, LoadResult } from '../../../viewer/src/page-api.js';
import { decodeRle } from './draw-script.js';

export type { DrawError };

/** One drawn frame: its RGBA bytes (top row first), or the previous frame's pixels again, or the page's error. */
export type Drawn = { rgba: Buffer } | { unchanged: true } | { error: DrawError };

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
    return this.page.evaluate((o) => window.cmViewer.load(o), options);
  }

  /** Draws one value given as its JSON text (the text is also the page's key for "unchanged"). */
  async draw(json: string, width: number, height: number): Promise<Drawn> {
    const r = (await this.page.evaluate((j) => (window as unknown as { __cmrDraw(j: string): Promise<unknown> }).__cmrDraw(j), json)) as
      | Uint8Array
      | null
      | { error: DrawError };
    if (r === null) return { unchanged: true };
    if (r instanceof Uint8Array) return { rgba: decodeRle(r, width * height) };
    return { error: r.error };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => {});
  }
}
