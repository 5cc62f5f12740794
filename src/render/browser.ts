// One warm Chromium (Debian's /usr/bin/chromium through playwright-core), launched once at start and relaunched if
// it dies, with a small pool of pages that already have the viewer loaded. A page may load only the viewer's own
// files (served from memory under /__cmrender__/) and the current job's assets; every other request is aborted.
import { chromium, type Browser, type BrowserContext, type Page, type Route } from 'playwright-core';
import { readdirSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { sniffImage } from '../contract/mime.js';
import { readFile } from 'node:fs/promises';
import type { LoadJob, LoadResult } from '../../viewer/src/page-api.js';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // software WebGL2 through ANGLE + SwiftShader
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
  '--force-color-profile=srgb',
];

export const PAGE_ORIGIN = 'http://cmrender.invalid';
const VIEWER_PREFIX = '/__cmrender__/';

/**
 * The viewer document's Content-Security-Policy: a second fence behind request routing, for what routing cannot see
 * (data: and blob: URLs, other schemes). Only the page's own origin may be reached.
 */
export const VIEWER_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "media-src 'none'",
  "object-src 'none'",
  "frame-src 'none'",
  "worker-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

export const DEFAULT_VIEWER_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'viewer');

const STATIC_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  woff: 'font/woff',
  css: 'text/css; charset=utf-8',
  json: 'application/json',
  wasm: 'application/wasm',
};

// Runs in the page: seek (waiting for images first seen at this time), read the pixels and run-length encode them as 32-bit words (flat 2D frames shrink by
// orders of magnitude, so far fewer bytes cross the DevTools protocol). Format: a header word h; h >= 2^31: a run
// of (h - 2^31) copies of the next word; else h literal words follow.
const GRAB_SCRIPT = `
window.__cmrGrab = async function (t) {
  const v = window.cmViewer;
  v.seek(t);
  if (v.pending > 0) {
    // an image first used at this time is still loading: wait for it (bounded), then draw again
    const end = performance.now() + 10000;
    while (v.pending > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 5));
    v.seek(t);
  }
  const px = v.pixels();
  const src = new Uint32Array(px.buffer, px.byteOffset, px.byteLength >>> 2);
  const n = src.length;
  const out = new Uint32Array(n + (n >>> 1) + 16);
  let o = 0, i = 0;
  while (i < n) {
    const val = src[i];
    let j = i + 1;
    while (j < n && src[j] === val) j++;
    if (j - i >= 3) { out[o++] = 0x80000000 + (j - i); out[o++] = val; i = j; continue; }
    const start = i; const hdr = o++;
    i = j;
    while (i < n) {
      if (i + 2 < n && src[i] === src[i + 1] && src[i] === src[i + 2]) break;
      i++;
    }
    out[hdr] = i - start;
    out.set(src.subarray(start, i), o); o += i - start;
  }
  return new Uint8Array(out.buffer, 0, o * 4);
};
true;
`;

/** Decodes __cmrGrab's run-length words into RGBA bytes. */
export function decodeRle(enc: Uint8Array, pixelCount: number): Buffer {
  const out = Buffer.allocUnsafe(pixelCount * 4);
  const dst = new Uint32Array(out.buffer, out.byteOffset, pixelCount);
  const aligned = enc.byteOffset % 4 === 0 ? enc : new Uint8Array(enc);
  const src = new Uint32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength >>> 2);
  let o = 0;
  let i = 0;
  while (i < src.length) {
    const h = src[i++];
    if (h >= 0x80000000) {
      const len = h - 0x80000000;
      dst.fill(src[i++], o, o + len);
      o += len;
    } else {
      dst.set(src.subarray(i, i + h), o);
      i += h;
      o += h;
    }
  }
  if (o !== pixelCount) throw new Error(`frame decode: got ${o} pixels, expected ${pixelCount}`);
  return out;
}

/** A page with the viewer loaded, leased to one job at a time. */
export class ViewerPage {
  /** URL path -> asset file, for the job holding the lease */
  assets = new Map<string, string>();
  servedAssets = false;
  closed = false;
  /** its renderer process died (crash, killed, out of memory) */
  crashed = false;

  constructor(readonly context: BrowserContext, readonly page: Page) {}

  async load(job: LoadJob): Promise<LoadResult> {
    return (await this.page.evaluate(`window.cmViewer.load(${JSON.stringify(job)})`)) as LoadResult;
  }

  /** Seeks to t, draws and returns the frame as RGBA bytes, top row first. */
  async grab(t: number, width: number, height: number): Promise<Buffer> {
    const enc = (await this.page.evaluate(`window.__cmrGrab(${JSON.stringify(t)})`)) as Uint8Array;
    return decodeRle(enc, width * height);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.context.close().catch(() => {});
  }
}

export interface WarmBrowserOptions {
  chromiumPath: string;
  viewerDir?: string;
  log: Logger;
  /** pages kept loaded and idle */
  poolSize?: number;
}

export class WarmBrowser {
  private browser: Browser | null = null;
  private launching: Promise<Browser> | null = null;
  private idle: ViewerPage[] = [];
  private warming: Promise<void> | null = null;
  private files = new Map<string, { body: Buffer; type: string }>();
  private closing = false;
  launches = 0;

  constructor(private readonly o: WarmBrowserOptions) {}

  private loadViewerFiles(): void {
    const dir = this.o.viewerDir ?? DEFAULT_VIEWER_DIR;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      throw new Error(`viewer files not found in ${dir}: run \`npm run build\``);
    }
    for (const name of names) {
      const ext = name.slice(name.lastIndexOf('.') + 1);
      this.files.set(VIEWER_PREFIX + name, { body: readFileSync(join(dir, name)), type: STATIC_TYPES[ext] ?? 'application/octet-stream' });
    }
    if (!this.files.has(VIEWER_PREFIX + 'index.html')) throw new Error(`${dir}/index.html missing: run \`npm run build\``);
  }

  async start(): Promise<void> {
    this.loadViewerFiles();
    await this.getBrowser();
    await this.refill();
  }

  private async getBrowser(): Promise<Browser> {
    if (this.browser?.isConnected()) return this.browser;
    this.launching ??= (async () => {
      const t0 = Date.now();
      const b = await chromium.launch({ executablePath: this.o.chromiumPath, headless: true, args: CHROMIUM_FLAGS, handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false });
      this.launches++;
      this.o.log.info({ ms: Date.now() - t0, version: b.version(), launches: this.launches }, 'chromium launched');
      b.on('disconnected', () => {
        if (this.browser === b) this.browser = null;
        this.idle = this.idle.filter((p) => p.context.browser() !== b);
        if (!this.closing) {
          this.o.log.warn('chromium disconnected; relaunching');
          void this.getBrowser().then(() => this.refill()).catch((err) => this.o.log.error({ err }, 'chromium relaunch failed'));
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
    const context = await browser.newContext({ serviceWorkers: 'block', viewport: { width: 640, height: 360 }, deviceScaleFactor: 1, javaScriptEnabled: true, acceptDownloads: false });
    const page = await context.newPage();
    const vp = new ViewerPage(context, page);
    await context.route('**/*', (route) => this.handle(vp, route));
    await context.routeWebSocket(/.*/, (ws) => ws.close());
    page.on('pageerror', (err) => this.o.log.debug({ err: err.message }, 'viewer page error'));
    page.on('crash', () => {
      // a dead page in the warm pool would fail the next job: drop it and warm a fresh one
      vp.crashed = true;
      this.o.log.warn('viewer page crashed; replacing it');
      if (this.idle.includes(vp)) {
        this.idle = this.idle.filter((p) => p !== vp);
        void vp.close().then(() => this.refill()).catch(() => {});
      }
    });
    await this.openViewer(vp);
    return vp;
  }

  /** (Re)loads the viewer document in a page: a new document keeps no image of an earlier job. */
  private async openViewer(vp: ViewerPage): Promise<void> {
    await vp.page.goto(`${PAGE_ORIGIN}${VIEWER_PREFIX}index.html`, { waitUntil: 'load' });
    await vp.page.waitForFunction(`typeof window.cmViewer === 'object' && window.cmViewer !== null`, undefined, { timeout: 30_000 });
    await vp.page.evaluate(GRAB_SCRIPT);
    vp.servedAssets = false;
  }

  private async handle(vp: ViewerPage, route: Route): Promise<void> {
    const req = route.request();
    let url: URL;
    try {
      url = new URL(req.url());
    } catch {
      return route.abort('blockedbyclient');
    }
    if (url.origin !== PAGE_ORIGIN || (req.method() !== 'GET' && req.method() !== 'HEAD')) return route.abort('blockedbyclient');
    let path: string;
    try {
      path = decodeURIComponent(url.pathname);
    } catch {
      return route.abort('blockedbyclient');
    }
    const f = this.files.get(path);
    if (f) return route.fulfill({ status: 200, body: f.body, contentType: f.type, headers: { 'content-security-policy': VIEWER_CSP, 'x-content-type-options': 'nosniff' } });
    const asset = vp.assets.get(path);
    if (asset) {
      try {
        const body = await readFile(asset);
        vp.servedAssets = true;
        return route.fulfill({ status: 200, body, contentType: sniffImage(body) ?? 'application/octet-stream' });
      } catch {
        return route.abort('failed');
      }
    }
    return route.abort('blockedbyclient');
  }

  /** Keeps poolSize idle pages ready. */
  refill(): Promise<void> {
    if (this.closing) return Promise.resolve();
    this.warming ??= (async () => {
      try {
        while (!this.closing && this.idle.length < (this.o.poolSize ?? 1)) this.idle.push(await this.newPage());
      } finally {
        this.warming = null;
      }
    })();
    return this.warming;
  }

  /** A page with the viewer loaded, for one job. */
  async acquire(): Promise<ViewerPage> {
    for (;;) {
      const p = this.idle.shift();
      if (!p) break;
      if (!p.closed && !p.crashed && p.page.context().browser()?.isConnected()) return p;
      void p.close();
    }
    return this.newPage();
  }

  /**
   * Returns a page after a job. A healthy page goes back to the pool; if it served an asset it first reloads the
   * viewer document (in the background), so no image of one job can be cached for another. A page that failed is
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
    void p.close().then(() => this.refill()).catch(() => {});
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
