// The page pool of the warm browser: a small pool of pages that already have the drawing page loaded, each behind
// the fence (fence.ts), warmed at start and kept warm for jobs. The browser under it, its relaunch on a crash and the
// recovery when pages lose their GL are live-browser.ts's.
import type { Browser, BrowserContext } from 'playwright-core';
import type { Logger } from 'pino';
import { settleWithin } from '../../contract/settle-within.js';
import { TookTooLong, within } from '../settles-within.js';
import type { GlProbe, GlSetting } from '../gl-backend.js';
import { answerPageRequest, PAGE_URL, readPageFiles, type PageFile } from './fence.js';
import { DRAW_SCRIPT } from './draw-script.js';
import { pageCrashed, ViewerPage } from './viewer-page.js';
import { CLOSE_WAIT_MS, LiveBrowser, PAGE_CONTEXT } from './live-browser.js';
import { JobFailure } from '../renderer-port.js';
import { CODE } from '../../contract/error-codes.js';

export interface WarmBrowserOptions {
  chromiumPath: string;
  viewerDir?: string;
  log: Logger;
  /** pages kept loaded and idle, at most */
  poolSize?: number;
  /**
   * pages warmed at start (default poolSize); the pool grows toward poolSize the first time jobs hold more pages at
   * once, and keeps that size from then on
   */
  startPages?: number;
  /** which GL draws (gl-backend.ts); default auto */
  gl?: GlSetting;
  /** how long warming one page may take before it counts as failed; default PAGE_WARM_MS */
  warmMs?: number;
}

export class WarmBrowser {
  private readonly live: LiveBrowser;
  private idle: ViewerPage[] = [];
  private warming: Promise<void> | null = null;
  private nextPage: Promise<ViewerPage> | null = null;
  private files = new Map<string, PageFile>();
  private closing = false;
  /** viewer pages that crashed (each is replaced) */
  pageCrashes = 0;
  /**
   * Counts recoveries: a page that began warming before the latest one started may hold a GPU channel to the
   * process that died (it came up while that process went away), so the warming loop does not keep it.
   */
  private generation = 0;
  /** how many idle pages the warming loop keeps: startPages, grown by acquire() up to poolSize */
  private wanted: number;
  private readonly poolSize: number;
  private readonly warmMs: number;
  private readonly viewerDir?: string;
  private readonly log: Logger;

  constructor({ chromiumPath, viewerDir, log, poolSize, startPages, gl, warmMs }: WarmBrowserOptions) {
    this.poolSize = poolSize ?? 1;
    this.warmMs = warmMs ?? PAGE_WARM_MS;
    this.wanted = Math.min(startPages ?? this.poolSize, this.poolSize);
    this.viewerDir = viewerDir;
    this.log = log;
    this.live = new LiveBrowser(
      { chromiumPath, gl, log },
      {
        gone: (b) => {
          this.idle = this.idle.filter((p) => p.context.browser() !== b);
        },
        lostGl: () => {
          this.generation++;
          const dropped = this.idle;
          this.idle = [];
          // not waited for: a page of a GPU process that hangs does not close, and its browser may be about to go
          void Promise.all(dropped.map((p) => p.close()));
        },
        refill: () => this.refill(),
      },
    );
  }

  /**
   * Launches the browser and resolves once one page is warm: the rest of the pool warms behind it (a job that comes
   * meanwhile takes the page on its way, acquire()), so a start does not wait for pages no job needs yet.
   */
  async start(): Promise<void> {
    this.files = readPageFiles(this.viewerDir);
    await this.live.get();
    const pool = this.refill();
    // refill() has set nextPage synchronously when a page is missing; the race also takes the pool's failure
    await Promise.race([pool, this.nextPage ?? pool]);
  }

  /** browsers launched, relaunches included */
  get launches(): number {
    return this.live.launches;
  }

  /** the GL backend the first launch's probe frame was drawn by */
  get gl(): GlProbe | null {
    return this.live.gl;
  }

  /** why the browser cannot draw now, else null */
  get fault(): string | null {
    return this.live.fault;
  }

  /** the running browser's process id */
  get pid(): number | undefined {
    return this.live.pid;
  }

  /** After a page lost its GL under a job: the pool's pages go and the browser is checked or relaunched (live-browser.ts). */
  recover(how: { relaunch?: boolean } = {}): Promise<void> {
    return this.live.recover(how);
  }

  /**
   * A fresh page with the drawing page loaded. Warming is bounded (PAGE_WARM_MS): a page whose renderer or GPU
   * process never answers fails the wait instead of holding the pool, and is closed whenever it does come.
   */
  private async newPage(): Promise<ViewerPage> {
    const browser = await this.live.get();
    const held: Warming = {};
    const warm = this.warmPage(browser, held);
    // a browser killed under a page on its way can leave Playwright's step waiting for ever (seen: newPage while the
    // browser was SIGKILLed): its disconnection ends the wait at once, so a job does not wait warmMs on a dead browser
    let gone = () => {};
    const disconnected = new Promise<never>((_, reject) => {
      gone = () => reject(new BrowserGone('the browser went away while a drawing page warmed'));
      browser.once('disconnected', gone);
      if (!browser.isConnected()) gone();
    });
    try {
      return await within(Promise.race([warm, disconnected]), this.warmMs, 'warming a drawing page');
    } catch (err) {
      held.abandoned = true;
      void held.context?.close().catch(() => {});
      void warm.then((vp) => vp.close()).catch(() => {});
      throw err;
    } finally {
      browser.off('disconnected', gone);
    }
  }

  /** newPage()'s steps; `held` has the context as soon as it exists, so a wait cut short can close it. */
  private async warmPage(browser: Browser, held: Warming): Promise<ViewerPage> {
    // the launch's probe context when it is this browser's (its page already drew a frame), else a new one
    const probed = this.live.takeProbed(browser);
    const context = probed ?? (await browser.newContext(PAGE_CONTEXT));
    held.context = context;
    if (held.abandoned) {
      await context.close().catch(() => {});
      throw new TookTooLong('warming a drawing page: given up');
    }
    const page = probed?.pages()[0] ?? (await context.newPage());
    const vp = new ViewerPage(context, page);
    await context.route('**/*', async (route) => {
      if (await answerPageRequest(route, this.files, vp.assets)) vp.servedAssets = true;
    });
    await context.routeWebSocket(/.*/, (ws) => ws.close());
    page.on('pageerror', (err) => this.log.debug({ err: err.message }, 'viewer page error'));
    page.on('crash', () => {
      // a dead page in the warm pool would fail the next job: drop it and warm a fresh one
      vp.crashed = true;
      this.pageCrashes++;
      this.log.warn('viewer page crashed; replacing it');
      if (this.idle.includes(vp)) {
        this.idle = this.idle.filter((p) => p !== vp);
        void vp
          .close()
          .then(() => this.refill())
          .catch(() => {});
      }
    });
    await this.openViewer(vp);
    return vp;
  }

  /** (Re)loads the drawing page: a new document keeps no image of an earlier job. */
  private async openViewer(vp: ViewerPage): Promise<void> {
    await vp.page.goto(PAGE_URL, { waitUntil: 'load' });
    await vp.page.waitForFunction(`typeof window.cmViewer === 'object' && window.cmViewer !== null`, undefined, {
      timeout: 30_000,
    });
    await vp.page.evaluate(DRAW_SCRIPT);
    vp.servedAssets = false;
  }

  /** Keeps `wanted` idle pages ready, warming one at a time (nextPage is the one on its way). */
  refill(): Promise<void> {
    if (this.closing) return Promise.resolve();
    // cleared in a later turn (.finally): a loop with nothing to warm ends at once, and clearing inside it would run
    // before the assignment and leave a settled promise here, so that no refill ever warmed again
    this.warming ??= (async () => {
      while (!this.closing && this.idle.length < this.wanted) {
        const generation = this.generation;
        this.nextPage = this.newPage();
        const p = await this.nextPage;
        this.nextPage = null;
        // a page a job gave back while this one warmed may have filled the pool: never keep more than poolSize
        if (this.idle.length < this.poolSize && generation === this.generation) this.idle.push(p);
        else void p.close();
      }
    })().finally(() => {
      this.warming = null;
      this.nextPage = null;
    });
    return this.warming;
  }

  /**
   * A page with the viewer loaded, for one job. When none is idle but one is warming (after a start or a crash),
   * the job waits for that one rather than starting another beside it: on two cores, pages warmed side by side
   * each take as long as both.
   */
  async acquire(): Promise<ViewerPage> {
    await this.live.recovering;
    if (this.live.fault)
      throw new JobFailure(
        `render failed: the renderer cannot draw now (${this.live.fault}); retry later`,
        CODE.renderer_unavailable,
      );
    for (let waited = false; ; waited = true) {
      for (;;) {
        const p = this.idle.shift();
        if (!p) break;
        if (!p.closed && !p.crashed && p.page.context().browser()?.isConnected() && (await answers(p))) return p;
        void p.close();
      }
      if (waited || !this.nextPage) break;
      await this.nextPage.catch(() => {}); // the warming loop puts it in idle first, then this takes it
    }
    // jobs hold more pages at once than the pool keeps: keep one more from now on (a recovery warms that many)
    this.wanted = Math.min(this.poolSize, this.wanted + 1);
    // a browser that died while the page warmed is being relaunched: the page comes from the new one
    const fresh = () => this.newPage();
    return fresh()
      .catch((err: unknown) => (err instanceof BrowserGone ? fresh() : Promise.reject(err)))
      .catch((err: unknown) => {
        // a browser whose pages do not come up is unwell: the client may retry, and the relaunch will tell
        if (err instanceof TookTooLong || err instanceof BrowserGone)
          throw new JobFailure(
            `render failed: the renderer did not answer (${err.message}); retry later`,
            CODE.renderer_unavailable,
          );
        throw err instanceof JobFailure ? err : pageCrashed(err); // any other failure to make one is Playwright's
      });
  }

  /**
   * Returns a page after a job. A healthy page goes back to the pool; if it served an asset it first reloads the
   * drawing page (in the background), so no image of one job can be cached for another. A page that failed is
   * closed and a fresh one warmed.
   */
  release(p: ViewerPage, healthy: boolean): void {
    p.assets = new Map();
    const room = () => !p.closed && !this.closing && this.idle.length < this.poolSize;
    if (healthy && room()) {
      if (!p.servedAssets) {
        this.idle.push(p);
        return;
      }
      void within(this.openViewer(p), this.warmMs, 'reloading a drawing page').then(
        () => {
          if (room()) this.idle.push(p);
          else void p.close();
        },
        () => void p.close().then(() => this.refill()),
      );
      return;
    }
    void p
      .close()
      .then(() => this.refill())
      .catch(() => {});
  }

  /** Warm pages waiting for a job. */
  get idleCount(): number {
    return this.idle.length;
  }

  get connected(): boolean {
    return this.live.connected;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.live.stop();
    // a page that never comes up (a hung renderer or GPU process) must not hold the close: closing the browser
    // below ends whatever still waits on it
    await settleWithin(Promise.allSettled([this.live.recovering, this.warming]), CLOSE_WAIT_MS);
    await settleWithin(Promise.allSettled(this.idle.map((p) => p.close())), CLOSE_WAIT_MS);
    this.idle = [];
    await this.live.close();
  }
}

/** the browser a page was warming in disconnected (killed, crashed) before the page came up */
class BrowserGone extends Error {}

/** a page on its way (newPage): its context once made, and whether the wait for it was given up */
interface Warming {
  context?: BrowserContext;
  abandoned?: boolean;
}

/**
 * how long warming a page may take (context, page, the drawing page's load and script) before it counts as failed:
 * about a second on a loaded machine
 */
const PAGE_WARM_MS = 60_000;

/** how long an idle page may take to answer before it counts as dead */
const PAGE_CHECK_MS = 5_000;
/** true unless the page's canvas has a WebGL2 context that was lost (getContext gives back the canvas's own) */
const CONTEXT_ALIVE = `(() => { const c = document.querySelector('canvas'); const gl = c && c.getContext('webgl2'); return !gl || !gl.isContextLost(); })()`;

/**
 * Whether an idle page's renderer still answers and its canvas still has its WebGL context: one round trip before a
 * job takes it. A renderer killed while idle (out of memory) is reported by a crash event that can arrive after the
 * next job has already taken the page; a GPU process that died leaves every page's context lost.
 */
async function answers(p: ViewerPage): Promise<boolean> {
  let alive = false;
  await settleWithin(
    p.page.evaluate(CONTEXT_ALIVE).then((a) => (alive = a === true)),
    PAGE_CHECK_MS,
  );
  return alive;
}
