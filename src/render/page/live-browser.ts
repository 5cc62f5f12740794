// The warm browser's Chromium and its recovery: launched once (the first launch picks the GL backend), relaunched when
// it dies, recovered when its pages lose their GL (a probe frame, else a relaunch), and a fault reported and retried
// while no browser can draw. The page pool (warm-browser.ts) is told what each of these does to its pages.
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import type { Logger } from 'pino';
import { browserPid, closeChromium, launchChromium, launchForGl } from '../chromium.js';
import { drawsOn, drawsOnKeeping, type GlBackend, type GlProbe, type GlSetting } from '../gl-backend.js';

/** What a browser's life does to the pages warmed in it. */
export interface PoolHooks {
  /** the browser went away (killed, crashed): its idle pages are dead */
  gone(browser: Browser): void;
  /** pages lost their GL: every idle page goes, and no page still warming is kept */
  lostGl(): void;
  /** warms the pool again, in the browser there is now */
  refill(): Promise<void>;
}

export interface LiveBrowserOptions {
  chromiumPath: string;
  /** which GL draws (gl-backend.ts); default auto */
  gl?: GlSetting;
  log: Logger;
}

export class LiveBrowser {
  private browser: Browser | null = null;
  private launching: Promise<Browser> | null = null;
  private stopped = false;
  private retryTimer: NodeJS.Timeout | null = null;
  /** the context the latest launch's probe frame was drawn in, kept for the next page to warm (takeProbed()) */
  private probed: BrowserContext | null = null;
  /** browsers launched, relaunches included */
  launches = 0;
  /** the GL backend the first launch's probe frame was drawn by; later launches (after a crash) keep it */
  gl: GlProbe | null = null;
  /** why the browser cannot draw now (recover() found its GL gone even after relaunches), else null */
  fault: string | null = null;
  /** the recovery under way (recover()), which a job waits out before it takes a page */
  recovering: Promise<void> | null = null;

  constructor(
    private readonly options: LiveBrowserOptions,
    private readonly pool: PoolHooks,
  ) {}

  /** The connected browser, launched (or relaunched) when there is none; concurrent callers share one launch. */
  get(): Promise<Browser> {
    if (this.browser?.isConnected()) return Promise.resolve(this.browser);
    this.launching ??= this.launched().finally(() => {
      this.launching = null;
    });
    return this.launching;
  }

  get connected(): boolean {
    return !!this.browser?.isConnected();
  }

  /** The browser's process id, logged at each launch (what an operator's kill or the OOM killer takes). */
  get pid(): number | undefined {
    return (this.browser && browserPid(this.browser)) || undefined;
  }

  /** The launch's probe context when it is this browser's (its page already drew a frame); taken once. */
  takeProbed(browser: Browser): BrowserContext | null {
    const probed = this.probed?.browser() === browser ? this.probed : null;
    this.probed = null;
    return probed;
  }

  private async launched(): Promise<Browser> {
    const t0 = Date.now();
    let b: Browser;
    try {
      b = await this.launch();
    } catch (err) {
      // the first launch's failure stops the start (GlUnavailable); a relaunch's is a fault to report and retry
      if (this.launches > 0) this.setFault((err as Error).message);
      throw err;
    }
    if (this.fault) this.options.log.info('the renderer draws again');
    this.fault = null;
    const gl = this.gl!;
    this.launches++;
    this.options.log.info(
      {
        ms: Date.now() - t0,
        version: b.version(),
        pid: browserPid(b),
        launches: this.launches,
        gl_backend: gl.backend,
        gl_renderer: gl.renderer,
      },
      'chromium launched',
    );
    b.on('disconnected', () => {
      if (this.browser === b) this.browser = null;
      this.pool.gone(b);
      if (!this.stopped) {
        this.options.log.warn('chromium disconnected; relaunching');
        void this.get()
          .then(() => this.pool.refill())
          .catch((err) => this.options.log.error({ err }, 'chromium relaunch failed'));
      }
    });
    this.browser = b;
    return b;
  }

  /**
   * The first launch picks the GL backend (launchForGl); a relaunch keeps it and checks with a probe frame that it
   * still draws on it (a relaunch on a machine whose EGL went away would quietly fall back to SwiftShader), within
   * PROBE_MS (gl-backend.ts). A relaunch that cannot draw in RELAUNCH_TRIES browsers sets `fault` and is tried again
   * every RECOVER_RETRY_MS.
   */
  private async launch(): Promise<Browser> {
    const { chromiumPath, log } = this.options;
    if (!this.gl) {
      const setting = this.options.gl ?? 'auto';
      const first = await launchForGl(setting, chromiumPath, this.probeKeeping);
      for (const why of first.tried) log.warn({ gl_setting: setting }, `GL backend skipped: ${why}`);
      this.gl = first.gl;
      return first.browser;
    }
    const backend = this.gl.backend;
    for (let attempt = 1; ; attempt++) {
      const b = await launchChromium(backend, chromiumPath);
      const { problem } = await this.probeKeeping(b, backend);
      if (!problem) return b;
      // its GPU process may be the part that hangs: a graceful close would wait on it
      await closeChromium(b, CLOSE_WAIT_MS);
      if (attempt >= RELAUNCH_TRIES) throw new Error(`the browser cannot draw on ${backend}: ${problem}`);
      log.warn({ problem, attempt }, 'a relaunched browser cannot draw; launching another');
    }
  }

  /**
   * A launch's probe frame, drawn in a context made as a drawing page's: when the backend drew it, that context
   * becomes the first page warmed, so a launch makes one context and one renderer process, not two.
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
    if (this.fault !== reason) this.options.log.error({ fault: reason }, 'the renderer cannot draw');
    this.fault = reason;
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (this.stopped) return;
      void this.recover().catch(() => {});
    }, RECOVER_RETRY_MS);
    this.retryTimer.unref();
  }

  /**
   * After a page lost its GL under a job (the GPU process was killed or crashed, a driver reset): the pool drops its
   * pages, a probe frame checks that the browser still draws (Chromium starts a new GPU process), and when it does
   * not the browser is relaunched; `relaunch` relaunches it without asking (a fresh page of this browser lost its GL
   * too). A relaunch that cannot draw either leaves `fault` set (health checks report it) and is tried again every
   * RECOVER_RETRY_MS. Concurrent callers share one recovery.
   */
  recover(how: { relaunch?: boolean } = {}): Promise<void> {
    this.recovering ??= (async () => {
      try {
        this.pool.lostGl();
        const b = this.browser?.isConnected() ? this.browser : null;
        if (b) {
          const problem = how.relaunch
            ? 'a fresh page lost its GL too'
            : (await drawsOn(b, this.gl?.backend ?? 'swiftshader')).problem;
          if (problem) {
            this.options.log.warn({ problem }, 'the browser cannot draw; relaunching it');
            this.browser = null;
            await closeChromium(b, CLOSE_WAIT_MS);
          }
        }
        await this.get();
        await this.pool.refill();
      } catch (err) {
        this.options.log.warn({ err }, 'recovering the renderer failed');
      } finally {
        this.recovering = null;
      }
    })();
    return this.recovering;
  }

  /** From now on a browser that dies is not relaunched and a fault is not retried (the service is closing). */
  stop(): void {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
  }

  /** Closes the browser (or the one being launched); call stop() first. */
  async close(): Promise<void> {
    const b = this.browser ?? (await this.launching?.catch(() => null));
    this.browser = null;
    if (b) await closeChromium(b, CLOSE_WAIT_MS);
  }
}

/** every drawing page's context: no service worker, no download, the viewport the page starts at */
export const PAGE_CONTEXT: BrowserContextOptions = {
  serviceWorkers: 'block',
  viewport: { width: 640, height: 360 },
  deviceScaleFactor: 1,
  javaScriptEnabled: true,
  acceptDownloads: false,
};

/** how long a close waits for a recovery, a page on its way or Chromium's own shutdown before it cuts them short */
export const CLOSE_WAIT_MS = 5_000;

/** browsers a relaunch starts before it reports a fault: a GPU process that fails or hangs once at its start is not a GL gone for good */
const RELAUNCH_TRIES = 2;

/** how often a browser that could not be made to draw is tried again */
const RECOVER_RETRY_MS = 10_000;
