// Drives the real drawing page (dist/viewer) in Debian's Chromium through playwright-core, the way the service does:
// sources are compiled and evaluated here in Node (src/lang) and the page draws the values. The page is served from
// disk through page.route at http://cmrender.invalid/viewer/; /img/* comes from the example images; every other
// request is aborted (as the renderer's fence does). A "source" that is a JSON document is a value tree (or
// {"duration", "runner", "frames": [[t0, value0], ...]}, the last frame with t_i <= t), so tests can draw trees
// the language would build.
import type { Browser, Page } from 'playwright-core';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, extname } from 'node:path';
import { PNG } from 'pngjs';
import { compile, formatJobMessage, newestRunner, type Diagnostic } from '../../src/lang/index.js';
import { launchTestChromium } from '../helpers/gl.js';
import { repoRoot } from '../../src/paths.js';
import { examplesDir, ownExamplesDir, corpusSkip } from '../helpers/shared.js';
import { builtViewer } from '../helpers/built.js';

export const ORIGIN = 'http://cmrender.invalid';
const IMG_DIR = join(examplesDir, 'img');
const OWN_IMG_DIR = join(ownExamplesDir, 'img');
export const EXAMPLES = examplesDir;
/** The `skip` option of a viewer test: the real language must exist, and `needs` (if given) names what it reads from the corpus. */
export const viewerSkip = (needs?: string): false | string =>
  (!realLang && 'src/lang/index.ts missing') || (needs !== undefined && corpusSkip(needs));
/** Whether the real language exists (src/lang/index.ts); source-level tests skip without it. */
export const realLang = existsSync(join(repoRoot, 'src', 'lang', 'index.ts'));

/** The drawing page as the service serves it (npm run build -> dist/viewer). */
export function bundle(): string {
  return builtViewer();
}

const MIME: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.woff': 'font/woff',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

export function launch(): Promise<Browser> {
  return launchTestChromium();
}

export async function openViewer(browser: Browser, width: number, height: number): Promise<Page> {
  return openViewerFrom(browser, bundle(), width, height);
}

/**
 * The viewer page served from a built bundle directory (the benchmark passes saved builds), images from the examples.
 * `query`: the page's query string (`?offscreen`: drawn as the service's page is, viewer/src/main.ts).
 */
export async function openViewerFrom(
  browser: Browser,
  dir: string,
  width: number,
  height: number,
  query = '',
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => console.error('[page]', e.message));
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    let file: string | null = null;
    if (url.origin === ORIGIN && url.pathname.startsWith('/viewer/'))
      file = join(dir, url.pathname.slice('/viewer/'.length));
    else if (url.origin === ORIGIN && url.pathname.startsWith('/img/')) {
      // The corpus's images first (its sources name them), else the ones shipped with our own examples.
      const name = url.pathname.slice('/img/'.length);
      file = existsSync(join(IMG_DIR, name)) ? join(IMG_DIR, name) : join(OWN_IMG_DIR, name);
    }
    if (file && !file.includes('..') && existsSync(file)) {
      await route.fulfill({
        status: 200,
        body: readFileSync(file),
        contentType: MIME[extname(file)] ?? 'application/octet-stream',
      });
    } else if (file) await route.fulfill({ status: 404, body: 'not found' });
    else await route.abort();
  });
  await page.goto(`${ORIGIN}/viewer/index.html${query}`);
  await page.waitForFunction(() => (window as any).cmViewer !== undefined);
  return page;
}

/** What a test draws from: the language's program, or a JSON document of value trees. */
export interface TestProgram {
  runner: string;
  durationSeconds: number;
  sceneAt(t: number): { value: unknown; diagnostics: readonly Pick<Diagnostic, 'code' | 'message' | 'severity'>[] };
}

function jsonProgram(doc: any): TestProgram {
  const frames: [number, unknown][] = doc && Array.isArray(doc.frames) ? doc.frames : [[0, doc]];
  return {
    runner: typeof doc?.runner === 'string' ? doc.runner : newestRunner(),
    durationSeconds: typeof doc?.duration === 'number' ? doc.duration : 6,
    sceneAt(t: number) {
      let v = frames[0][1];
      for (const [ti, vi] of frames) if (ti <= t) v = vi;
      return { value: v, diagnostics: [] };
    },
  };
}

const programs = new WeakMap<Page, TestProgram>();

export type LoadOutcome =
  | { ok: true; duration: number; width: number; height: number; runner: string }
  | { ok: false; code: string | null; message: string };

/** Compiles (or reads) the source in Node, then starts the page's job: load({width, height, runner}). */
export async function load(page: Page, source: string, width: number, height: number): Promise<LoadOutcome> {
  let program: TestProgram;
  if (source.trimStart().startsWith('{')) program = jsonProgram(JSON.parse(source));
  else {
    const c = compile(source);
    if (!c.ok || !c.program) {
      const d = c.diagnostics.find((x) => x.severity === 'error') ?? c.diagnostics[0];
      return { ok: false, code: d?.code ?? null, message: d ? formatJobMessage(d) : 'compile failed' };
    }
    program = c.program;
  }
  programs.set(page, program);
  const r = await page.evaluate((o) => (window as any).cmViewer.load(o), { width, height, runner: program.runner });
  if (!r.ok) return { ok: false, code: r.error.code, message: r.error.message };
  return { ok: true, duration: program.durationSeconds, width: r.width, height: r.height, runner: r.runner };
}

export interface Frame {
  width: number;
  height: number;
  data: Uint8Array;
}

/** Draws a value tree directly (its JSON text is the key), resolving with the page's DrawResult. */
export function drawValue(page: Page, value: unknown): Promise<any> {
  const json = JSON.stringify(value);
  return page.evaluate((j) => (window as any).cmViewer.draw(JSON.parse(j), j), json);
}

/** Evaluates the loaded program at t here, has the page draw the value, and reads its pixels. */
export async function frameAt(page: Page, t: number): Promise<Frame> {
  const program = programs.get(page);
  if (!program) throw new Error('frameAt before load');
  const s = program.sceneAt(t);
  const err = s.diagnostics.find((d) => d.severity === undefined || d.severity === 'error');
  if (err) throw new Error(formatJobMessage(err as Diagnostic));
  const json = JSON.stringify(s.value);
  const r = await page.evaluate(async (j) => {
    const v = (window as any).cmViewer;
    const d = await v.draw(JSON.parse(j), j);
    if (!d.ok) return { error: d.error };
    return { width: v.width, height: v.height, data: v.pixels() as Uint8Array };
  }, json);
  if ('error' in r) throw Object.assign(new Error(`${r.error.code}: ${r.error.message}`), { drawError: r.error });
  return { width: r.width, height: r.height, data: new Uint8Array(r.data) };
}

export function px(f: Frame, x: number, y: number): [number, number, number, number] {
  const i = (y * f.width + x) * 4;
  return [f.data[i], f.data[i + 1], f.data[i + 2], f.data[i + 3]];
}

export function near(a: ArrayLike<number>, b: ArrayLike<number>, tol = 2): boolean {
  for (let i = 0; i < 3; i++) if (Math.abs(a[i] - b[i]) > tol) return false;
  return true;
}

export function writePng(f: Frame, path: string): void {
  const png = new PNG({ width: f.width, height: f.height });
  png.data = Buffer.from(f.data.buffer, f.data.byteOffset, f.data.byteLength);
  writeFileSync(path, PNG.sync.write(png));
}

export function readPng(path: string): Frame {
  const p = PNG.sync.read(readFileSync(path));
  return { width: p.width, height: p.height, data: new Uint8Array(p.data) };
}

// ---- tiny value-tree builders for the JSON test double ----
export const n = (value: number, unit: string | null = null) => ({ kind: 'number', value, unit });
export const hex = (digits: string) => ({ kind: 'color', form: 'hex', digits });
export const s = (text: string) => ({ kind: 'string', raw: JSON.stringify(text) });
export const node = (name: string, named: Record<string, any> = {}, ...pos: any[]) => ({
  kind: 'constructed',
  name,
  fields: [
    ...pos.map((v) => ({ name: '', value: v })),
    ...Object.entries(named).map(([k, v]) => ({ name: k, value: v })),
  ],
});
export const arr = (...elems: any[]) => ({ kind: 'array', elems });
export const compose = (...layers: any[]) => node('compose', { layers: arr(...layers) });
