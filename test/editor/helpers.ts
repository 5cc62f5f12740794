// The editor in the real Chromium against the real service: the service listens on a free port, a page opens `/`.
import { after, before } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { PNG } from 'pngjs';
import { launchTestChromium } from '../helpers/gl.js';
import { builtEditor, builtViewer } from '../helpers/built.js';
import { realRenderer, startApp, type TestApp } from '../helpers/app.js';
import type { Config } from '../../src/config/settings.js';
import type { RenderHooks, RenderJob, Renderer, RenderKind } from '../../src/render/renderer-port.js';

/**
 * How long a wait for something the page will do (start, preview, tooltip) may last before the test calls it hung:
 * generous, because a loaded machine (load 8 on 2 cores) takes many times the usual second, and what the tests
 * assert is what happened, not how fast.
 */
export const WAIT_MS = 60_000;

/**
 * The rig's renderer: the real one, with a hold a test can put on the next job it renders. That job waits in hand,
 * its render slot taken, until the test lets it go, so a job posted behind it is in line for as long as the test
 * needs, however fast or loaded the machine is.
 */
export class HeldRenderer implements Renderer {
  private held: Promise<void> | null = null;
  constructor(private readonly real: Renderer) {}
  /** Holds the next job rendered until the returned function is called. */
  holdNext(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((r) => (release = r));
    return release;
  }
  async render(job: RenderJob, hooks: RenderHooks) {
    const held = this.held;
    this.held = null;
    if (held) await held;
    return this.real.render(job, hooks);
  }
  estimate(job: Parameters<NonNullable<Renderer['estimate']>>[0]) {
    return this.real.estimate ? this.real.estimate(job) : Promise.resolve(null);
  }
  setup(kind: RenderKind) {
    return this.real.setup?.(kind);
  }
  start() {
    return this.real.start();
  }
  fault() {
    return this.real.fault?.() ?? null;
  }
  close() {
    return this.real.close();
  }
  counters() {
    return this.real.counters?.() ?? { chromiumLaunches: 0, pageCrashes: 0, compiles: 0 };
  }
}

export interface EditorRig {
  t: TestApp;
  renderer: HeldRenderer;
  browser: Browser;
  base: string;
  /** an editor page a test gave back (closeEditor), by device scale factor, for the file's next openEditor */
  spare: Map<number, Page>;
  close(): Promise<void>;
}

/** How long one editor test may take before it fails rather than holding up the run (each takes seconds). */
export const LIMIT = { timeout: 180_000 };

/**
 * The rig of a test file: started before its first test, closed after its last. The object returned is filled in
 * by the `before` hook, so the file's tests read it as they would a started rig.
 */
export function rigForFile(config: Partial<Config> = {}, limit = LIMIT): EditorRig {
  const rig = {} as EditorRig;
  before(async () => {
    Object.assign(rig, await startRig(config));
  }, limit);
  after(() => rig.close?.(), limit);
  return rig;
}

export async function startRig(config: Partial<Config> = {}): Promise<EditorRig> {
  builtViewer();
  builtEditor();
  const renderer = new HeldRenderer(realRenderer());
  const t = await startApp({ renderer, config });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  const browser = await launchTestChromium();
  return {
    t,
    renderer,
    browser,
    base: `http://127.0.0.1:${port}`,
    spare: new Map(),
    async close() {
      await browser.close();
      await t.close();
    },
  };
}

/** The device scale factor each editor page was opened with. */
const scaleOf = new WeakMap<Page, number>();

/**
 * The editor open in a page of its own with empty local and session storage; page errors fail loudly. The page is the
 * one the file's last test gave back (closeEditor) when there is one, loaded afresh: reopening the editor in a page it
 * had costs Chromium about half what a new context does (0.63 s of CPU against 1.1-1.3 s an open, measured on 2 cores),
 * and the editor tests open it about 30 times a run.
 */
export async function openEditor(rig: EditorRig, hash = '', deviceScaleFactor = 1): Promise<Page> {
  let page = rig.spare.get(deviceScaleFactor);
  rig.spare.delete(deviceScaleFactor);
  if (!page || page.isClosed()) {
    const ctx = await rig.browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor });
    page = await ctx.newPage();
    scaleOf.set(page, deviceScaleFactor);
  }
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${rig.base}/${hash}`);
  await page
    .waitForFunction(() => window.cmEditor !== undefined, null, { timeout: WAIT_MS })
    .catch(() => {
      throw new Error(`the editor did not start: ${errors.join('; ')}`);
    });
  return page;
}

/**
 * A test is done with its editor page: the page leaves the editor for a small page of the same origin (so whatever
 * the editor stores as it goes is stored now), its local and session storage are cleared, its listeners and granted
 * permissions dropped, and it is kept for the next openEditor of the file. A test that fails before this leaves its
 * page alone, and the next test gets a new context.
 */
export async function closeEditor(rig: EditorRig, page: Page): Promise<void> {
  const scale = scaleOf.get(page) ?? 1;
  if (page.isClosed()) return;
  if (rig.spare.has(scale)) return page.context().close();
  try {
    await page.goto(`${rig.base}/healthz`);
    await page.evaluate(() => {
      localStorage.clear();
      sessionStorage.clear();
    });
    await page.removeAllListeners();
    await page.context().clearPermissions();
    rig.spare.set(scale, page);
  } catch {
    await page.context().close();
  }
}

/** Waits until a preview drawn after `before` previews has finished. */
export async function previewSettled(page: Page, before: number): Promise<void> {
  await page.waitForFunction((n) => window.cmEditor.previews > n && !window.cmEditor.drawing, before, {
    timeout: WAIT_MS,
  });
}

/** Replaces the source and waits for its first preview. */
export async function setSource(page: Page, source: string): Promise<void> {
  const before = await page.evaluate(() => window.cmEditor.previews);
  await page.evaluate((s) => window.cmEditor.setSource(s), source);
  await previewSettled(page, before);
}

export interface Pixels {
  width: number;
  height: number;
  rgba: Buffer;
}

export async function previewPixels(page: Page): Promise<Pixels> {
  const p = await page.evaluate(() => window.cmEditor.previewPixels());
  return { width: p.width, height: p.height, rgba: Buffer.from(p.rgba, 'base64') };
}

export function decodePng(bytes: Buffer): Pixels {
  const png = PNG.sync.read(bytes);
  return { width: png.width, height: png.height, rgba: png.data };
}

export function pixelAt(p: Pixels, x: number, y: number): number[] {
  const i = (Math.floor(y) * p.width + Math.floor(x)) * 4;
  return [...p.rgba.subarray(i, i + 4)];
}

/** How many pixels differ (any channel) between two images of one size. */
export function differingPixels(a: Pixels, b: Pixels): number {
  let n = 0;
  for (let i = 0; i < a.rgba.length; i += 4) {
    if (
      a.rgba[i] !== b.rgba[i] ||
      a.rgba[i + 1] !== b.rgba[i + 1] ||
      a.rgba[i + 2] !== b.rgba[i + 2] ||
      a.rgba[i + 3] !== b.rgba[i + 3]
    )
      n++;
  }
  return n;
}
