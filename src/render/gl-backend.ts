// Which GL draws the frames. `egl`: ANGLE on the system's EGL, which is Mesa's llvmpipe on a machine without a GPU
// and the GPU's own driver (NVIDIA's EGL through glvnd, Mesa's radeonsi or iris) on one with; the fast path.
// `swiftshader`: ANGLE on SwiftShader, the reference runner's exact pixels. `auto` (the default) takes `egl` when a
// probe frame draws on it, else `swiftshader`. The flags alone do not say what Chromium gave us (it may fall back to
// software or switch WebGL off), so every launch is judged by the probe's unmasked renderer string.
import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { availableParallelism } from 'node:os';
import type { GlBackend, GlSetting } from '../contract/hardware.js';
import { settleWithin } from '../contract/settle-within.js';
import { within } from './settles-within.js';

export type { GlBackend, GlSetting };

export const GL_FLAGS: Record<GlBackend, readonly string[]> = {
  // no --disable-gpu: it would keep ANGLE off the system's EGL; no X server is needed
  egl: ['--use-gl=angle', '--use-angle=gl-egl', '--ignore-gpu-blocklist'],
  swiftshader: ['--disable-gpu', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
};

/** What a probe frame found: the backend it was drawn by, and WebGL's unmasked renderer and vendor strings. */
export interface GlProbe {
  backend: GlBackend;
  renderer: string;
  vendor: string;
}

export type ProbeResult = { ok: true; renderer: string; vendor: string } | { ok: false; reason: string };

/** The colour the probe clears to and reads back: a GL that cannot give it back cannot draw our frames. */
const PROBE_RGBA = [255, 128, 0, 255];

/**
 * Draws one frame in a blank page of a new context made with `options`: a WebGL2 context, a clear, a read back of one
 * pixel, and the unmasked renderer string (WEBGL_debug_renderer_info), judged for `backend`. The context is handed
 * back open (its one page drawn on) when `backend` drew it, so a caller that needs a page of that kind next takes this
 * one: a launch then starts one context and one renderer process fewer (about 0.3 s of CPU). A probe that failed
 * closes its context.
 */
export async function drawsOnKeeping(
  browser: Browser,
  backend: GlBackend,
  options: BrowserContextOptions,
): Promise<{ probe: ProbeResult; problem: string | null; context: BrowserContext | null }> {
  let context: BrowserContext | null = null;
  let probe: ProbeResult;
  try {
    context = await within(browser.newContext(options), PROBE_MS, 'the probe frame');
    probe = await within(drawProbe(context), PROBE_MS, 'the probe frame');
  } catch (err) {
    probe = { ok: false, reason: (err as Error).message };
  }
  const problem = probeProblem(backend, probe);
  if (problem && context) {
    await settleWithin(context.close(), CONTEXT_CLOSE_MS);
    context = null;
  }
  return { probe, problem, context };
}

/** how long a probe frame may take (on a loaded machine it takes under a second) before the GL counts as gone */
const PROBE_MS = 15_000;
const CONTEXT_CLOSE_MS = 2_000;

async function drawProbe(context: BrowserContext): Promise<ProbeResult> {
  const page = await context.newPage();
  return page.evaluate((rgba) => {
    const canvas = document.createElement('canvas');
    canvas.width = canvas.height = 4;
    const gl = canvas.getContext('webgl2');
    if (!gl) return { ok: false as const, reason: 'WebGL2 is not available' };
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
    const vendor = String(gl.getParameter(info ? info.UNMASKED_VENDOR_WEBGL : gl.VENDOR));
    gl.clearColor(rgba[0] / 255, rgba[1] / 255, rgba[2] / 255, rgba[3] / 255);
    gl.clear(gl.COLOR_BUFFER_BIT);
    const px = new Uint8Array(4);
    gl.readPixels(1, 1, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
    if (px.some((v, i) => Math.abs(v - rgba[i]) > 1))
      return { ok: false as const, reason: `the probe frame read back ${[...px]} on ${renderer}` };
    return { ok: true as const, renderer, vendor };
  }, PROBE_RGBA);
}

/** Whether a renderer string is SwiftShader's (what Chromium falls back to when the system's GL fails). */
export const isSwiftShader = (renderer: string): boolean => /swiftshader/i.test(renderer);

/** Whether a renderer string is Mesa's software rasteriser (the `egl` backend on a machine without a GPU). */
export const isLlvmpipe = (renderer: string): boolean => /llvmpipe/i.test(renderer);

/** Judges a probe taken on a browser launched for `backend`: null when that backend drew it, else why not. */
export function probeProblem(backend: GlBackend, probe: ProbeResult): string | null {
  if (!probe.ok) return probe.reason;
  if (backend === 'egl' && isSwiftShader(probe.renderer))
    return `Chromium fell back to SwiftShader (${probe.renderer})`;
  if (backend === 'swiftshader' && !isSwiftShader(probe.renderer))
    return `Chromium drew with ${probe.renderer}, not SwiftShader`;
  return null;
}

/**
 * Draws a probe frame in a browser launched for `backend` and judges it: `problem` is null when that backend drew it.
 * A probe that throws (a browser that died meanwhile) is a problem, never an exception.
 */
export async function drawsOn(
  browser: Browser,
  backend: GlBackend,
): Promise<{ probe: ProbeResult; problem: string | null }> {
  const { probe, problem, context } = await drawsOnKeeping(browser, backend, {});
  // a context whose page hangs may not close either: the browser's own close ends it
  if (context) await settleWithin(context.close(), CONTEXT_CLOSE_MS);
  return { probe, problem };
}

/** The backends to try, in order, for a setting. */
export const candidates = (setting: GlSetting): GlBackend[] =>
  setting === 'auto' ? ['egl', 'swiftshader'] : [setting];

/** The error of a service that was told to use a backend it cannot have: it fails to start with this message. */
export class GlUnavailable extends Error {
  constructor(setting: GlSetting, reasons: string[]) {
    super(
      setting === 'egl'
        ? `RENDER_GL=egl but ANGLE on the system's EGL cannot draw here: ${reasons.join('; ')}. ` +
            "Install Debian's libegl-mesa0 and libgl1-mesa-dri (or the GPU's EGL driver), or set RENDER_GL=swiftshader."
        : `RENDER_GL=${setting}: no GL backend can draw here: ${reasons.join('; ')}`,
    );
  }
}

/**
 * Environment for Chromium's GPU process on `egl`: llvmpipe rasterises with LP_NUM_THREADS threads (Mesa's default
 * is one per core). A value set by the operator wins.
 */
export function glEnv(backend: GlBackend, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (backend !== 'egl' || env.LP_NUM_THREADS) return env;
  return { ...env, LP_NUM_THREADS: String(defaultLlvmpipeThreads()) };
}

/** llvmpipe's threads when the operator sets none: every core (measured on 2 cores with bench/chromium-cpu.ts, issue 34: LP_NUM_THREADS unset, 0 and 1 within the run-to-run spread). */
export function defaultLlvmpipeThreads(): number {
  return availableParallelism();
}
