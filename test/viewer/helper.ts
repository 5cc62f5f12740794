// Drives the real viewer page in Debian's Chromium through playwright-core. The page is served from disk
// through page.route at http://cmrender.invalid/viewer/; /img/* comes from the shared example images;
// every other request is aborted (as the renderer does).
import { chromium, type Browser, type Page } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, mkdirSync, copyFileSync, readdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';
import { FONT_PACKAGE_FILE, FONT_SERVED_NAME } from '../../viewer/src/font-file';
import { examplesDir } from '../helpers/shared';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ORIGIN = 'http://cmrender.invalid';
const IMG_DIR = join(examplesDir, 'img');
export const EXAMPLES = examplesDir;

export const CHROMIUM_ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
  '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

const bundles = new Map<string, string>();
/** Whether the real language exists (src/lang/index.ts); source-level tests skip without it. */
export const realLang = existsSync(join(root, 'src', 'lang', 'index.ts'));

/**
 * 'dist': the real page (npm run build → dist/viewer). 'json': the same viewer bundled with the JSON test
 * double of json-lang.ts in place of the language, so value trees can be drawn directly.
 */
export async function bundle(kind: 'dist' | 'json'): Promise<string> {
  const have = bundles.get(kind);
  if (have) return have;
  let dir: string;
  if (kind === 'dist') {
    execFileSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'build-viewer.ts')], { stdio: 'inherit' });
    dir = join(root, 'dist', 'viewer');
  } else {
    const { build } = await import('esbuild');
    dir = `/tmp/cm-viewer-test-bundle-${process.pid}`;
    mkdirSync(dir, { recursive: true });
    const made = dir;
    process.on('exit', () => rmSync(made, { recursive: true, force: true }));
    await build({
      entryPoints: [join(root, 'viewer', 'src', 'main.ts')], bundle: true, format: 'esm', target: 'es2022',
      outfile: join(dir, 'viewer.js'), logLevel: 'warning',
      plugins: [{ name: 'json-lang', setup(b) { b.onResolve({ filter: /lang-bridge$/ }, () => ({ path: join(root, 'test', 'viewer', 'json-lang.ts') })); } }],
    });
    for (const f of readdirSync(join(root, 'viewer', 'static'))) copyFileSync(join(root, 'viewer', 'static', f), join(dir, f));
    const { createRequire } = await import('node:module');
    copyFileSync(createRequire(import.meta.url).resolve(FONT_PACKAGE_FILE), join(dir, FONT_SERVED_NAME));
  }
  bundles.set(kind, dir);
  return dir;
}

const MIME: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.woff': 'font/woff', '.jpg': 'image/jpeg', '.png': 'image/png', '.svg': 'image/svg+xml',
};

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

export async function openViewer(browser: Browser, width: number, height: number, kind: 'dist' | 'json' = 'dist'): Promise<Page> {
  return openViewerFrom(browser, await bundle(kind), width, height);
}

/** The viewer page served from a built bundle directory (the benchmark passes saved builds), images from the examples. */
export async function openViewerFrom(browser: Browser, dir: string, width: number, height: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height }, deviceScaleFactor: 1 });
  page.on('pageerror', (e) => console.error('[page]', e.message));
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    let file: string | null = null;
    if (url.origin === ORIGIN && url.pathname.startsWith('/viewer/')) file = join(dir, url.pathname.slice('/viewer/'.length));
    else if (url.origin === ORIGIN && url.pathname.startsWith('/img/')) file = join(IMG_DIR, url.pathname.slice('/img/'.length));
    if (file && !file.includes('..') && existsSync(file)) {
      await route.fulfill({ status: 200, body: readFileSync(file), contentType: MIME[extname(file)] ?? 'application/octet-stream' });
    } else if (file) await route.fulfill({ status: 404, body: 'not found' });
    else await route.abort();
  });
  await page.goto(`${ORIGIN}/viewer/index.html`);
  await page.waitForFunction(() => (window as any).cmViewer !== undefined);
  return page;
}

export interface Frame { width: number; height: number; data: Uint8Array }

export async function load(page: Page, source: string, width: number, height: number): Promise<any> {
  return page.evaluate((job) => (window as any).cmViewer.load(job), { source, width, height });
}

export async function frameAt(page: Page, t: number): Promise<Frame> {
  const r = await page.evaluate((t) => {
    const v = (window as any).cmViewer;
    v.seek(t);
    return { width: v.width, height: v.height, data: v.pixels() as Uint8Array };
  }, t);
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
  kind: 'constructed', name, fields: [...pos.map((v) => ({ name: '', value: v })), ...Object.entries(named).map(([k, v]) => ({ name: k, value: v }))],
});
export const arr = (...elems: any[]) => ({ kind: 'array', elems });
export const compose = (...layers: any[]) => node('compose', { layers: arr(...layers) });
