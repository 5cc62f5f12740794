// The fence around the drawing page: it may load only its own files (held in memory, served under
// /__cmrender__/) and the current job's assets; every other request is aborted. The Content-Security-Policy is a
// second fence for what request routing cannot see (data: and blob: URLs, other schemes).
import { readdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Route } from 'playwright-core';
import { PAGE_FILE_MIME, sniffImage } from '../../contract/mime.js';
import { viewerDistDir } from '../../paths.js';

export const PAGE_ORIGIN = 'http://cmrender.invalid';
export const PAGE_PREFIX = '/__cmrender__/';
/**
 * The drawing page as the service loads it: `offscreen`, the page draws into a target of its own, not its canvas,
 * so a read back resolves only the part it reads (viewer/src/msaa-target.ts).
 */
export const PAGE_URL = `${PAGE_ORIGIN}${PAGE_PREFIX}index.html?offscreen`;

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

export interface PageFile {
  body: Buffer;
  type: string;
}

/** The built page's files, read once: a job never waits on the disk for them. */
export function readPageFiles(dir = viewerDistDir): Map<string, PageFile> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    throw new Error(`viewer files not found in ${dir}: run \`npm run build\``);
  }
  const files = new Map<string, PageFile>();
  for (const name of names) {
    const ext = name.slice(name.lastIndexOf('.') + 1);
    files.set(PAGE_PREFIX + name, {
      body: readFileSync(join(dir, name)),
      type: PAGE_FILE_MIME[ext] ?? 'application/octet-stream',
    });
  }
  if (!files.has(PAGE_PREFIX + 'index.html')) throw new Error(`${dir}/index.html missing: run \`npm run build\``);
  return files;
}

/**
 * Answers one request of a page: its own files, or an asset of the job holding the page (URL path -> file).
 * Returns whether an asset was served (the page must then be reloaded before another job uses it).
 */
export async function answerPageRequest(
  route: Route,
  files: Map<string, PageFile>,
  assets: ReadonlyMap<string, string>,
): Promise<boolean> {
  const req = route.request();
  let url: URL;
  try {
    url = new URL(req.url());
  } catch {
    await route.abort('blockedbyclient');
    return false;
  }
  if (url.origin !== PAGE_ORIGIN || (req.method() !== 'GET' && req.method() !== 'HEAD')) {
    await route.abort('blockedbyclient');
    return false;
  }
  let path: string;
  try {
    path = decodeURIComponent(url.pathname);
  } catch {
    await route.abort('blockedbyclient');
    return false;
  }
  const f = files.get(path);
  if (f) {
    await route.fulfill({
      status: 200,
      body: f.body,
      contentType: f.type,
      headers: { 'content-security-policy': VIEWER_CSP, 'x-content-type-options': 'nosniff' },
    });
    return false;
  }
  const asset = assets.get(path);
  if (!asset) {
    await route.abort('blockedbyclient');
    return false;
  }
  try {
    const body = await readFile(asset);
    await route.fulfill({ status: 200, body, contentType: sniffImage(body) ?? 'application/octet-stream' });
    return true;
  } catch {
    await route.abort('failed');
    return false;
  }
}
