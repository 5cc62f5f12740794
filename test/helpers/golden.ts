// What the golden-hash tests share (test/render/golden.test.ts: runner versions on the shared examples;
// test/render/corpus-golden.test.ts: our own corpus): the hash file's shape, the builds that drew it, the
// failure message, and one app per GL backend with the reason it cannot draw here (if any).
import { execFileSync } from 'node:child_process';
import { defaultChromiumPath } from '../../src/render/chromium.js';
import type { GlBackend } from '../../src/contract/hardware.js';
import { isLlvmpipe } from '../../src/render/gl-backend.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';
import { startApp, type TestApp } from './app.js';
import type { Renderer } from '../../src/render/renderer-port.js';

/** What drew a backend's hashes: the Chromium build and WebGL's unmasked renderer string (Mesa's for egl). */
export interface BackendGolden {
  chromium: string;
  gl_renderer: string;
  frames: Record<string, string>;
}
export type GoldenFile = Record<GlBackend, BackendGolden>;

export const BACKENDS: GlBackend[] = ['swiftshader', 'egl'];

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
