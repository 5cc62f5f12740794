// One warm Chromium, launched once at start and relaunched if it dies, with a small pool of pages that already
// have the drawing page loaded, each behind the fence (fence.ts).
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import type { Logger } from 'pino';
import { browserPid, closeChromium, launchChromium, launchForGl } from '../chromium.js';
import { settlesWithin, TookTooLong, within } from '../settles-within.js';
import { drawsOn, drawsOnKeeping, type GlBackend, type GlProbe, type GlSetting } from '../gl-backend.js';
import { answerPageRequest, PAGE_URL, readPageFiles, type PageFile } from './fence.js';
import { DRAW_SCRIPT } from './draw-script.js';
import { pageCrashed, ViewerPage } from './viewer-page.js';
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
  private browser: Browser | null = null;
  private launching: Promise<Browser> | null = null;
  private idle: ViewerPage[] = [];
  private warming: Promise<void> | null = null;
  private nextPage: Promise<ViewerPage> | null = null;
  private files = new Map<string, PageFile>();
  private closing = false;
  launches = 0;
  /** viewer pages that crashed (each is replaced) */
  pageCrashes = 0;
  /** the GL backend the first launch's probe frame was drawn by; later launches (after a crash) keep it */
  gl: GlProbe | null = null;
  /** why the browser cannot draw now (recover() found its GL gone even after relaunches), else null */
  fault: string | null = null;
  private recovering: Promise<void> | null = null;
  private retryTimer: NodeJS.Timeout | null = null;
  /**
   * Counts recoveries: a page that began warming before the latest one started may hold a GPU channel to the
   * process that died (it came up while that process went away), so the warming loop does not keep it.
   */
  private generation = 0;
  /** the context the latest launch's probe frame was drawn in, kept for the next page to warm (launch()) */
  private probed: BrowserContext | null = null;
  /** how many idle pages the warming loop keeps: startPages, grown by acquire() up to poolSize */
  private wanted: number;
  private readonly poolSize: number;
  private readonly warmMs: number;

  constructor(private readonly o: WarmBrowserOptions) {
    this.poolSize = o.poolSize ?? 1;
    this.warmMs = o.warmMs ?? PAGE_WARM_MS;
    this.wanted = Math.min(o.startPages ?? this.poolSize, this.poolSize);
  }

  /**
   * Launches the browser and resolves once one page is warm: the rest of the pool warms behind it (a job that comes
   * meanwhile takes the page on its way, acquire()), so a start does not wait for pages no job needs yet.
   */
  async start(): Promise<void> {
    this.files = readPageFiles(this.o.viewerDir);
    await this.getBrowser();
    const pool = this.refill();
    // refill() has set nextPage synchronously when a page is missing; the race also takes the pool's failure
    await Promise.race([pool, this.nextPage ?? pool]);
  }

  /**
   * The first launch picks the GL backend (launchForGl); a relaunch keeps it and checks with a probe frame that it
   * still draws on it (a relaunch on a machine whose EGL went away would quietly fall back to SwiftShader), within
   * PROBE_MS (gl-backend.ts). A relaunch that cannot draw in RELAUNCH_TRIES browsers sets `fault` and is tried again
   * every RECOVER_RETRY_MS.
   */
  private async launch(): Promise<Browser> {
    if (!this.gl) {
      const first = await launchForGl(this.o.gl ?? 'auto', this.o.chromiumPath, this.probeKeeping);
      for (const why of first.tried) this.o.log.warn({ gl_setting: this.o.gl ?? 'auto' }, `GL backend skipped: ${why}`);
      this.gl = first.gl;
      return first.browser;
    }
    const backend = this.gl.backend;
    for (let attempt = 1; ; attempt++) {
      const b = await launchChromium(backend, this.o.chromiumPath);
      const { problem } = await this.probeKeeping(b, backend);
      if (!problem) return b;
      // its GPU process may be the part that hangs: a graceful close would wait on it
      await closeChromium(b, CLOSE_WAIT_MS);
      if (attempt >= RELAUNCH_TRIES) throw new Error(`the browser cannot draw on ${backend}: ${problem}`);
      this.o.log.warn({ problem, attempt }, 'a relaunched browser cannot draw; launching another');
    }
  }

  /**
   * A launch's probe frame, drawn in a context made as a drawing page's: when the backend drew it, that context
   * becomes the first page warmed (warmPage), so a launch makes one context and one renderer process, not two.
   */
  private readonly probeKeeping = async (b: Browser, backend: GlBackend) => {
    const judged = await drawsOnKeeping(b, backend, PAGE_CONTEXT);
    if (judged.context) {
      void this.probed?.close().catch(() => {});
      this.probed = judged.context;
    }
    return judged;
  };

  /** Says why the browser cannot draw, and tries again later (a relaunch, then the pool). */
  private setFault(reason: string): void {
    if (this.fault !== reason) this.o.log.error({ fault: reason }, 'the renderer cannot draw');
    this.fault = reason;
    if (this.closing || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.closing) return;
      void this.recover().catch(() => {});
    }, RECOVER_RETRY_MS);
    this.retryTimer.unref();
  }

  private async getBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= (async () => {
      const t0 = Date.now();
      let b: Browser;
      try {
        b = await this.launch();
      } catch (err) {
        // the first launch's failure stops the start (GlUnavailable); a relaunch's is a fault to report and retry
        if (this.launches > 0) this.setFault((err as Error).message);
        throw err;
      }
      if (this.fault) this.o.log.info('the renderer draws again');
      this.fault = null;
      const gl = this.gl!;
      this.launches++;
      this.o.log.info(
        {
          ms: Date.now() - t0,
          version: b.version(),
          launches: this.launches,
          gl_backend: gl.backend,
          gl_renderer: gl.renderer,
        },
        'chromium launched',
      );
      b.on('disconnected', () => {
        if (this.browser === b) this.browser = null;
        this.idle = this.idle.filter((p) => p.context.browser() !== b);
        if (!this.closing) {
          this.o.log.warn('chromium disconnected; relaunching');
          void this.getBrowser()
            .then(() => this.refill())
            .catch((err) => this.o.log.error({ err }, 'chromium relaunch failed'));
        }
      });
      this.browser = b;
      return b;
    })().finally(() => {
      this.launching = null;
    });
    return this.launching;
  }

  /**
   * After a page lost its GL under a job (the GPU process was killed or crashed, a driver reset): every idle page
   * goes, and so does every page still warming, a probe frame checks that the browser still draws (Chromium starts
   * a new GPU process), and when it does not the browser is relaunched; `relaunch` relaunches it without asking
   * (a fresh page of this browser lost its GL too). A relaunch that cannot draw either leaves `fault` set (health
   * checks report it) and is tried again every RECOVER_RETRY_MS. Concurrent callers share one recovery.
   */
  recover(how: { relaunch?: boolean } = {}): Promise<void> {
    this.recovering ??= (async () => {
      try {
        this.generation++;
        const dropped = this.idle;
        this.idle = [];
        // not waited for: a page of a GPU process that hangs does not close, and its browser may be about to go
        void Promise.all(dropped.map((p) => p.close()));
        const b = this.browser?.isConnected() ? this.browser : null;
        if (b) {
          const problem = how.relaunch
            ? 'a fresh page lost its GL too'
            : (await drawsOn(b, this.gl?.backend ?? 'swiftshader')).problem;
          if (problem) {
            this.o.log.warn({ problem }, 'the browser cannot draw; relaunching it');
            this.browser = null;
            await closeChromium(b, CLOSE_WAIT_MS);
          }
        }
        await this.getBrowser();
        await this.refill();
      } catch (err) {
        this.o.log.warn({ err }, 'recovering the renderer failed');
      } finally {
        this.recovering = null;
      }
    })();
    return this.recovering;
  }

  /**
   * Kills the browser process, as the OOM killer would (tests use it to check the relaunch). Not CDP's Browser.crash:
   * under load that left a browser stuck in its crash handler, neither dead nor answering.
   */
  async crashForTest(): Promise<void> {
    const b = this.browser;
    const pid = b && browserPid(b);
    if (pid) process.kill(pid, 'SIGKILL');
  }

  /**
   * A fresh page with the drawing page loaded. Warming is bounded (PAGE_WARM_MS): a page whose renderer or GPU
   * process never answers fails the wait instead of holding the pool, and is closed whenever it does come.
   */
  private async newPage(): Promise<ViewerPage> {
    const browser = await this.getBrowser();
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
    const probed = this.probed?.browser() === browser ? this.probed : null;
    this.probed = null;
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
    page.on('pageerror', (err) => this.o.log.debug({ err: err.message }, 'viewer page error'));
    page.on('crash', () => {
      // a dead page in the warm pool would fail the next job: drop it and warm a fresh one
      vp.crashed = true;
      this.pageCrashes++;
      this.o.log.warn('viewer page crashed; replacing it');
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
    await this.recovering;
    if (this.fault)
      throw new JobFailure(
        `render failed: the renderer cannot draw now (${this.fault}); retry later`,
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
    return !!this.browser?.isConnected();
  }

  async close(): Promise<void> {
    this.closing = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    // a page that never comes up (a hung renderer or GPU process) must not hold the close: closing the browser
    // below ends whatever still waits on it
    await settlesWithin(Promise.allSettled([this.recovering, this.warming]), CLOSE_WAIT_MS);
    await settlesWithin(Promise.allSettled(this.idle.map((p) => p.close())), CLOSE_WAIT_MS);
    this.idle = [];
    const b = this.browser ?? (await this.launching?.catch(() => null));
    this.browser = null;
    if (b) await closeChromium(b, CLOSE_WAIT_MS);
  }
}

/** every drawing page's context: no service worker, no download, the viewport the page starts at */
const PAGE_CONTEXT: BrowserContextOptions = {
  serviceWorkers: 'block',
  viewport: { width: 640, height: 360 },
  deviceScaleFactor: 1,
  javaScriptEnabled: true,
  acceptDownloads: false,
};

/** the browser a page was warming in disconnected (killed, crashed) before the page came up */
class BrowserGone extends Error {}

/** a page on its way (newPage): its context once made, and whether the wait for it was given up */
interface Warming {
  context?: BrowserContext;
  abandoned?: boolean;
}

/** browsers a relaunch starts before it reports a fault: a GPU process that fails or hangs once at its start is not a GL gone for good */
const RELAUNCH_TRIES = 2;

/** how long close() waits for a recovery, a page on its way or Chromium's own shutdown before it cuts them short */
const CLOSE_WAIT_MS = 5_000;

/**
 * how long warming a page may take (context, page, the drawing page's load and script) before it counts as failed:
 * about a second on a loaded machine
 */
const PAGE_WARM_MS = 60_000;

/** how long an idle page may take to answer before it counts as dead */
const PAGE_CHECK_MS = 5_000;
/** how often a browser that could not be made to draw is tried again */
const RECOVER_RETRY_MS = 10_000;
/** true unless the page's canvas has a WebGL2 context that was lost (getContext gives back the canvas's own) */
const CONTEXT_ALIVE = `(() => { const c = document.querySelector('canvas'); const gl = c && c.getContext('webgl2'); return !gl || !gl.isContextLost(); })()`;

/**
 * Whether an idle page's renderer still answers and its canvas still has its WebGL context: one round trip before a
 * job takes it. A renderer killed while idle (out of memory) is reported by a crash event that can arrive after the
 * next job has already taken the page; a GPU process that died leaves every page's context lost.
 */
async function answers(p: ViewerPage): Promise<boolean> {
  let alive = false;
  await settlesWithin(
    p.page.evaluate(CONTEXT_ALIVE).then((a) => (alive = a === true)),
    PAGE_CHECK_MS,
  );
  return alive;
}
