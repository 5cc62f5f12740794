// renderer.render(job): compile + plan in Node (prepare.ts), draw in the warm viewer page, and write the PNG
// (png.ts) or stream raw RGBA frames into one ffmpeg process (ffmpeg.ts). Consecutive frames whose scene value is
// identical are not drawn again: the previous pixels are written again (the viewer is deterministic).
import { rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { imagePaths } from '../lang/index.js';
import { WarmBrowser, type ViewerPage } from './browser.js';
import { VideoEncoder, rgbaToI420 } from './ffmpeg.js';
import { encodePng } from './png.js';
import { checkImages, diagnosticsFailure, literalPosition, prepare, type Plan } from './prepare.js';
import { JobFailure, type Renderer, type RenderHooks, type RenderJob, type RenderOutcome } from './types.js';

export interface ChromiumRendererOptions {
  chromiumPath: string;
  ffmpegPath?: string;
  viewerDir?: string;
  log: Logger;
  /** idle warm pages kept ready (default: the render concurrency) */
  concurrency?: number;
}

class Aborted extends Error {}

export class ChromiumRenderer implements Renderer {
  readonly browser: WarmBrowser;

  constructor(private readonly o: ChromiumRendererOptions & { tmpDir?: string }) {
    this.browser = new WarmBrowser({ chromiumPath: o.chromiumPath, viewerDir: o.viewerDir, log: o.log, poolSize: Math.max(1, o.concurrency ?? 1) });
  }

  start(): Promise<void> {
    return this.browser.start();
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    const t0 = performance.now();
    const plan = prepare(job);
    const compileMs = performance.now() - t0;
    if (hooks.signal.aborted) throw new Aborted('aborted');
    const page = await this.browser.acquire();
    let healthy = false;
    const onAbort = () => void page.close();
    hooks.signal.addEventListener('abort', onAbort, { once: true });
    try {
      page.assets = plan.assetFiles;
      // A frame job's load draws its own time, so the grab finds that frame already drawn (no extra t = 0 draw).
      const loaded = await page.load({ source: job.source, width: plan.width, height: plan.height, at: job.kind === 'frame' ? plan.at : 0 });
      if (!loaded.ok) throw viewerFailure(loaded.message, loaded.code, job.source);
      if (loaded.width !== plan.width || loaded.height !== plan.height) throw new Error(`viewer canvas is ${loaded.width}x${loaded.height}, expected ${plan.width}x${plan.height}`);
      const r = job.kind === 'frame' ? await this.frame(job, plan, page) : await this.video(job, plan, page, hooks);
      healthy = true;
      return { width: plan.width, height: plan.height, runner: plan.runner, frames: plan.frames, timings: { compile_ms: round(compileMs), render_ms: round(r.renderMs), encode_ms: round(r.encodeMs) } };
    } catch (err) {
      if (hooks.signal.aborted) throw new Aborted('aborted');
      if (err instanceof JobFailure) {
        healthy = !page.closed;
        throw err;
      }
      this.o.log.warn({ err, job_id: job.id }, 'render stage failed');
      throw new JobFailure(renderReason(err), null);
    } finally {
      hooks.signal.removeEventListener('abort', onAbort);
      this.browser.release(page, healthy);
    }
  }

  private async frame(job: RenderJob, plan: Plan, page: ViewerPage): Promise<{ renderMs: number; encodeMs: number }> {
    const t0 = performance.now();
    const rgba = await page.grab(plan.at, plan.width, plan.height);
    const t1 = performance.now();
    const png = encodePng(rgba, plan.width, plan.height);
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    await writeFile(tmp, png);
    await rename(tmp, job.outPath);
    return { renderMs: t1 - t0, encodeMs: performance.now() - t1 };
  }

  private async video(job: RenderJob, plan: Plan, page: ViewerPage, hooks: RenderHooks): Promise<{ renderMs: number; encodeMs: number }> {
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    const enc = new VideoEncoder({ ffmpegPath: this.o.ffmpegPath, width: plan.width, height: plan.height, fps: plan.fps, outPath: tmp });
    let renderMs = 0;
    let encodeMs = 0;
    const keyAt = (i: number) => {
      const scene = plan.program.sceneAt(i / plan.fps);
      if (scene.diagnostics.some((d) => d.severity === 'error')) throw diagnosticsFailure(scene.diagnostics);
      return { key: JSON.stringify(scene.value), value: scene.value };
    };
    const assetsByPath = Object.fromEntries(plan.assetFiles);
    const checked = new Set<string>();
    const checkAssets = (value: Parameters<typeof imagePaths>[0]) => {
      for (const p of imagePaths(value)) {
        if (checked.has(p)) continue;
        checkImages(value, assetsByPath, job.source);
        checked.add(p);
      }
    };
    let grabbing: Promise<Buffer> | null = null;
    try {
      // Pipelined: while Node converts and writes frame i (and its repeats), the page already draws the next
      // distinct frame. A frame whose scene value equals the previous one is not drawn again.
      let cur = keyAt(0);
      checkAssets(cur.value);
      let t0 = performance.now();
      grabbing = page.grab(0, plan.width, plan.height);
      let i = 0;
      while (i < plan.frames) {
        if (hooks.signal.aborted) throw new Aborted('aborted');
        const raw = await grabbing!;
        grabbing = null;
        const t1 = performance.now();
        renderMs += t1 - t0;
        let j = i + 1;
        let next: ReturnType<typeof keyAt> | null = null;
        for (; j < plan.frames; j++) {
          const k = keyAt(j);
          if (k.key !== cur.key) {
            next = k;
            break;
          }
        }
        t0 = performance.now();
        if (next) {
          checkAssets(next.value);
          grabbing = page.grab(j / plan.fps, plan.width, plan.height);
          grabbing.catch(() => {});
        }
        const t2 = performance.now();
        const yuv = rgbaToI420(raw, plan.width, plan.height);
        for (let k = i; k < j; k++) {
          if (hooks.signal.aborted) throw new Aborted('aborted');
          await enc.write(yuv);
          hooks.onProgress?.((k + 1) / plan.frames);
        }
        encodeMs += performance.now() - t2;
        i = j;
        if (next) cur = next;
      }
      const t2 = performance.now();
      await enc.finish();
      encodeMs += performance.now() - t2;
      await rename(tmp, job.outPath);
      return { renderMs, encodeMs };
    } catch (err) {
      enc.kill();
      await rm(tmp, { force: true });
      throw err;
    }
  }
}

/** A load failure reported by the page; an image that could not be loaded gets its position, like our own ASS001. */
function viewerFailure(message: string, code: string | null, source: string): JobFailure {
  const m = /^ASS001 (image "(.*)" .*)$/.exec(message);
  if (code === 'ASS001' && m && !/ at line \d+, column \d+$/.test(message)) {
    const pos = literalPosition(source, m[2]);
    const diag = { code, message: m[1], severity: 'error', ...(pos ?? {}) };
    return new JobFailure(pos ? `${message} at line ${pos.line}, column ${pos.column}` : message, code, [diag]);
  }
  return new JobFailure(message, code);
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function renderReason(err: unknown): string {
  const m = err instanceof Error ? err.message : String(err);
  if (/ffmpeg/i.test(m)) return 'video encoder failed';
  if (/Target (page|closed)|browser has been closed|crash|disconnected/i.test(m)) return 'browser crashed during the render';
  return `render failed: ${m.split('\n')[0].slice(0, 160)}`;
}
