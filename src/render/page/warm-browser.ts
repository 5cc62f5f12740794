// One warm Chromium, launched once at start and relaunched if it dies, with a small pool of pages that already
// have the drawing page loaded, each behind the fence (fence.ts).
import type { Browser } from 'playwright-core';
import type { Logger } from 'pino';
import { launchChromium, launchForGl } from '../chromium.js';
import type { GlProbe, GlSetting } from '../gl-backend.js';
import { answerPageRequest, PAGE_URL, readPageFiles, type PageFile } from './fence.js';
import { DRAW_SCRIPT } from './draw-script.js';
import { ViewerPage } from './viewer-page.js';

export interface WarmBrowserOptions {
  chromiumPath: string;
  viewerDir?: string;
  log: Logger;
  /** pages kept loaded and idle */
  poolSize?: number;
  /** which GL draws (gl-backend.ts); default auto */
  gl?: GlSetting;
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

  constructor(private readonly o: WarmBrowserOptions) {}

  async start(): Promise<void> {
    this.files = readPageFiles(this.o.viewerDir);
    await this.getBrowser();
    await this.refill();
  }

  private async getBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= (async () => {
      const t0 = Date.now();
      let b: Browser;
      if (this.gl) b = await launchChromium(this.gl.backend, this.o.chromiumPath);
      else {
        const first = await launchForGl(this.o.gl ?? 'auto', this.o.chromiumPath);
        for (const why of first.tried)
          this.o.log.warn({ gl_setting: this.o.gl ?? 'auto' }, `GL backend skipped: ${why}`);
        this.gl = first.gl;
        b = first.browser;
      }
      this.launches++;
      this.o.log.info(
        {
          ms: Date.now() - t0,
          version: b.version(),
          launches: this.launches,
          gl_backend: this.gl.backend,
          gl_renderer: this.gl.renderer,
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

  /** Crashes the browser process (tests use it to check the relaunch). */
  async crashForTest(): Promise<void> {
    const b = this.browser;
    if (!b) return;
    const s = await b.newBrowserCDPSession();
    await s.send('Browser.crash').catch(() => {});
  }

  private async newPage(): Promise<ViewerPage> {
    const browser = await this.getBrowser();
    const context = await browser.newContext({
      serviceWorkers: 'block',
      viewport: { width: 640, height: 360 },
      deviceScaleFactor: 1,
      javaScriptEnabled: true,
      acceptDownloads: false,
    });
    const page = await context.newPage();
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

  /** Keeps poolSize idle pages ready, warming one at a time (nextPage is the one on its way). */
  refill(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.warming ??= (async () => {
      try {
        while (!this.closing && this.idle.length < (this.o.poolSize ?? 1)) {
          this.nextPage = this.newPage();
          this.idle.push(await this.nextPage);
          this.nextPage = null;
        }
      } finally {
        this.warming = null;
        this.nextPage = null;
      }
    })();
    return this.warming;
  }

  /**
   * A page with the viewer loaded, for one job. When none is idle but one is warming (after a start or a crash),
   * the job waits for that one rather than starting another beside it: on two cores, pages warmed side by side
   * each take as long as both.
   */
  async acquire(): Promise<ViewerPage> {
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
    return this.newPage();
  }

  /**
   * Returns a page after a job. A healthy page goes back to the pool; if it served an asset it first reloads the
   * drawing page (in the background), so no image of one job can be cached for another. A page that failed is
   * closed and a fresh one warmed.
   */
  release(p: ViewerPage, healthy: boolean): void {
    p.assets = new Map();
    const room = () => !p.closed && !this.closing && this.idle.length < (this.o.poolSize ?? 1);
    if (healthy && room()) {
      if (!p.servedAssets) {
        this.idle.push(p);
        return;
      }
      void this.openViewer(p).then(
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
    await this.warming?.catch(() => {});
    for (const p of this.idle) await p.close();
    this.idle = [];
    const b = this.browser ?? (await this.launching?.catch(() => null));
    this.browser = null;
    await b?.close().catch(() => {});
  }
}

/** how long an idle page may take to answer before it counts as dead */
const PAGE_CHECK_MS = 5_000;

/**
 * Whether an idle page's renderer still answers: one round trip before a job takes it. A renderer killed while
 * idle (out of memory) is reported by a crash event that can arrive after the next job has already taken the page.
 */
async function answers(p: ViewerPage): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PAGE_CHECK_MS)));
  const ok = p.page.evaluate('1').then(
    () => true,
    () => false,
  );
  return Promise.race([ok, late]).finally(() => clearTimeout(timer));
}
