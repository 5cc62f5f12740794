// What the golden-hash tests share (test/render/golden.test.ts: runner versions on the shared examples;
// test/render/corpus-golden.test.ts: our own corpus): the hash file's shape, the builds that drew it, the
// failure message, and one app per GL backend with the reason it cannot draw here (if any).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { deflateSync, inflateSync } from 'node:zlib';
import { defaultChromiumPath } from '../../src/render/chromium.js';
import type { GlBackend } from '../../src/contract/hardware.js';
import { isLlvmpipe } from '../../src/render/gl-backend.js';
import { chunk } from '../../src/render/png.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';
import { startApp, type TestApp } from './app.js';
import type { Renderer } from '../../src/render/renderer-port.js';

/** What drew a backend's hashes: the Chromium build and WebGL's unmasked renderer string (Mesa's for egl). */
export interface BackendGolden {
  chromium: string;
  gl_renderer: string;
  frames: Record<string, string>;
  /**
   * Frames a class of CPU draws with other bytes, by class (cpuClass()), where they differ from `frames`: llvmpipe
   * compiles its shaders for the CPU it runs on, and on one CPU with AVX-512 (Sapphire Rapids' flags) 2 of 41 egl
   * frames came out with other bytes (same Chromium, same Mesa). Bytes stay fixed per class: each is held to its own.
   */
  cpu_classes?: Record<string, Record<string, string>>;
}
export type GoldenFile = Record<GlBackend, BackendGolden>;

export const BACKENDS: GlBackend[] = ['swiftshader', 'egl'];

/**
 * The class of this machine's CPU for the goldens: its AVX-512 and AMX feature flags, sorted (null without any: the
 * default). Which of them moves the bytes is not known (llvmpipe's code and Skia's both pick paths by CPU), so a
 * class is the whole set: a CPU with another set is held to the default frames, as before classes existed.
 */
export function cpuClass(): string | null {
  let info = '';
  try {
    info = readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
  const flags = (/^flags\s*:(.*)$/m.exec(info)?.[1] ?? '').split(/\s+/).filter((f) => /^(avx512|amx)/.test(f));
  return flags.length ? [...new Set(flags)].sort().join(' ') : null;
}

/** The hash a frame must have on this machine: its CPU class's where that class draws it otherwise. */
export function expectedHash(g: BackendGolden, key: string): string | undefined {
  const c = cpuClass();
  return (c ? g.cpu_classes?.[c]?.[key] : undefined) ?? g.frames[key];
}

/**
 * The entry to write after recording `now` on this machine: on a machine of the default class, its frames (the
 * classes' differences are kept; re-record on each class after an intended change); on another class, the file's
 * frames with this class's differences from them.
 */
export function recordedEntry(was: BackendGolden | undefined, now: BackendGolden): BackendGolden {
  const c = cpuClass();
  if (!c || !was) return { ...now, ...(was?.cpu_classes ? { cpu_classes: was.cpu_classes } : {}) };
  const differ = Object.fromEntries(Object.entries(now.frames).filter(([k, h]) => was.frames[k] !== h));
  const { [c]: _old, ...others } = was.cpu_classes ?? {};
  const classes = Object.keys(differ).length ? { ...others, [c]: differ } : others;
  return { ...was, ...(Object.keys(classes).length ? { cpu_classes: classes } : { cpu_classes: undefined }) };
}

/**
 * A frame's golden hash: the SHA-256 of its PNG in the form the goldens were recorded in, its header and scanlines as
 * written (size, colour type, every filter byte and pixel) deflated as one zlib stream at level 6. What a golden
 * holds is what was drawn and how it was filtered; how src/render/png.ts cuts its zlib stream into pieces (issue 54)
 * is the encoder's own business and has its tests in test/render/encoders.test.ts. A broken stream fails here too:
 * inflating checks its Adler-32.
 */
export function goldenHash(png: Buffer): string {
  const chunks: { type: string; data: Buffer }[] = [];
  for (let o = 8; o < png.length;) {
    const length = png.readUInt32BE(o);
    chunks.push({ type: png.toString('latin1', o + 4, o + 8), data: png.subarray(o + 8, o + 8 + length) });
    o += 12 + length;
  }
  const scanlines = inflateSync(Buffer.concat(chunks.filter((c) => c.type === 'IDAT').map((c) => c.data)));
  const ihdr = chunks.find((c) => c.type === 'IHDR')!.data;
  const canonical = Buffer.concat([
    png.subarray(0, 8),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(scanlines, { level: 6, memLevel: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return createHash('sha256').update(canonical).digest('hex');
}

/** The hash file with what this run recorded merged in (recordedEntry per backend). */
export function recordedFile(golden: GoldenFile, recorded: Partial<GoldenFile>): GoldenFile {
  const out = { ...golden };
  for (const [b, now] of Object.entries(recorded) as [GlBackend, BackendGolden][])
    out[b] = recordedEntry(golden[b], now);
  return out;
}

export const chromiumVersion = () => execFileSync(defaultChromiumPath(), ['--version'], { encoding: 'utf8' }).trim();

/**
 * The pixels are what the goldens promise, not the build strings: a newer Chromium (or Mesa) that draws the same
 * bytes passes. One that draws other bytes fails with both builds named, so the upgrade is a visible decision.
 * `testFile` is the test that re-records (its path from the repository root).
 */
export function changedBytes(key: string, was: BackendGolden, now: BackendGolden, testFile: string): string {
  const builds = (g: BackendGolden) => `${g.chromium}, ${g.gl_renderer}`;
  const same = builds(was) === builds(now);
  return (
    `${key}: the PNG bytes changed (recorded with ${builds(was)}; ${same ? 'the same builds here' : `here ${builds(now)}`}). ` +
    'If only the browser or Mesa changed and `npm run compare` shows the frames still match the reference, ' +
    `re-record with \`UPDATE_GOLDEN=1 node --import tsx --test ${testFile}\` (docs/runner-versions.md)`
  );
}

/**
 * The service with `renderer` (the caller's realRenderer(1, { gl: backend }), named there so scripts/lib/test-groups.ts
 * sees a system test) drawing through `backend`. `unavailable` says why this backend's goldens
 * cannot be checked here: it did not start, or it is egl on something other than Mesa llvmpipe (a GPU draws its own
 * pixels). `recorded` starts this backend's entry of a hash file being recorded.
 */
export async function startBackend(
  backend: GlBackend,
  renderer: Renderer,
): Promise<{ t: TestApp | null; unavailable: string | null; recorded: BackendGolden | null }> {
  let t: TestApp;
  try {
    t = await startApp({ renderer });
  } catch (err) {
    await renderer.close();
    return { t: null, unavailable: `${backend} cannot draw here: ${(err as Error).message}`, recorded: null };
  }
  const gl = (renderer as ChromiumRenderer).gl!;
  const unavailable =
    backend === 'egl' && !isLlvmpipe(gl.renderer)
      ? `the egl goldens are Mesa llvmpipe's and this machine's EGL is ${gl.renderer}`
      : null;
  return { t, unavailable, recorded: { chromium: chromiumVersion(), gl_renderer: gl.renderer, frames: {} } };
}
