// The Chromium renderer: compile and evaluate in Node (prepare.ts, frame-sequence.ts), draw the values in a warm
// drawing page, and write the PNG (png.ts), stream the pictures into one ffmpeg process (ffmpeg.ts) or make a GIF
// in two passes over them (gif-encoder.ts).
import { rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { WarmBrowser } from './page/warm-browser.js';
import type { ViewerPage } from './page/viewer-page.js';
import { VideoEncoder, rgbaToI420Async } from './ffmpeg.js';
import { encodePngAsync } from './png.js';
import { GifWriter, GIF_PASS1_SHARE } from './gif-encoder.js';
import { prepare, type Plan } from './prepare.js';
import { Aborted, drawFrame, frameSequence, type SequenceStats } from './frame-sequence.js';
import { isNoSpace, pageReason, stageReason } from './failure-reasons.js';
import { JobFailure, type Renderer, type RenderHooks, type RenderJob, type RenderOutcome, type WorkEstimate } from './types.js';
import { estimateWork } from './work-estimate.js';

export interface ChromiumRendererOptions {
  chromiumPath: string;
  ffmpegPath?: string;
  viewerDir?: string;
  log: Logger;
  /** idle warm pages kept ready (default: the render concurrency) */
  concurrency?: number;
}

interface StageTimes {
  evaluateMs: number;
  renderMs: number;
  encodeMs: number;
}

export class ChromiumRenderer implements Renderer {
  readonly browser: WarmBrowser;

  constructor(private readonly o: ChromiumRendererOptions) {
    this.browser = new WarmBrowser({ chromiumPath: o.chromiumPath, viewerDir: o.viewerDir, log: o.log, poolSize: Math.max(1, o.concurrency ?? 1) });
  }

  start(): Promise<void> {
    return this.browser.start();
  }

  estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets'>): WorkEstimate | null {
    return estimateWork(job);
  }

  close(): Promise<void> {
    return this.browser.close();
  }

  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    const t0 = performance.now();
    const plan = prepare(job);
    const compileMs = performance.now() - t0;
    if (hooks.signal.aborted) throw new Aborted();
    const page = await this.browser.acquire();
    let healthy = false;
    const onAbort = () => void page.close();
    hooks.signal.addEventListener('abort', onAbort, { once: true });
    try {
      page.assets = plan.assets.byUrlPath;
      const loaded = await page.load({ width: plan.width, height: plan.height, runner: plan.runner });
      if (!loaded.ok) {
        this.o.log.warn({ job_id: job.id, page_error: loaded.error }, 'drawing page refused the load');
        throw new JobFailure(pageReason(loaded.error), null);
      }
      const r =
        job.kind === 'frame' ? await this.frame(job, plan, page)
        : job.kind === 'gif' ? await this.gif(job, plan, page, hooks)
        : await this.video(job, plan, page, hooks);
      healthy = true;
      return {
        width: plan.width,
        height: plan.height,
        runner: plan.runner,
        frames: plan.frames,
        timings: { compile_ms: round(compileMs), evaluate_ms: round(r.evaluateMs), render_ms: round(r.renderMs), encode_ms: round(r.encodeMs) },
      };
    } catch (err) {
      if (hooks.signal.aborted) throw new Aborted();
      if (err instanceof JobFailure) {
        healthy = !page.closed;
        throw err;
      }
      this.o.log.warn({ err, job_id: job.id }, 'render stage failed');
      throw new JobFailure(stageReason(err), isNoSpace(err) ? 'storage_full' : null);
    } finally {
      hooks.signal.removeEventListener('abort', onAbort);
      this.browser.release(page, healthy);
    }
  }

  private async frame(job: RenderJob, plan: Plan, page: ViewerPage): Promise<StageTimes> {
    const t0 = performance.now();
    const rgba = await drawFrame(page, plan, job.source, plan.first, null);
    const t1 = performance.now();
    const png = await encodePngAsync(rgba, plan.width, plan.height);
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    await writeFile(tmp, png);
    await rename(tmp, job.outPath);
    return { evaluateMs: 0, renderMs: t1 - t0, encodeMs: performance.now() - t1 };
  }

  private async video(job: RenderJob, plan: Plan, page: ViewerPage, hooks: RenderHooks): Promise<StageTimes> {
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    const enc = new VideoEncoder({ ffmpegPath: this.o.ffmpegPath, width: plan.width, height: plan.height, fps: plan.fps, outPath: tmp });
    const stats: SequenceStats = { evaluateMs: 0, drawMs: 0, drawn: 0 };
    let encodeMs = 0;
    try {
      for await (const pic of frameSequence(plan, page, job.source, hooks.signal, stats)) {
        const t0 = performance.now();
        const yuv = await rgbaToI420Async(pic.rgba, plan.width, plan.height);
        for (let k = 0; k < pic.count; k++) {
          if (hooks.signal.aborted) throw new Aborted();
          await enc.write(yuv);
          hooks.onProgress?.((pic.first + k + 1) / plan.frames, { done: pic.first + k + 1, total: plan.frames });
        }
        encodeMs += performance.now() - t0;
      }
      const t1 = performance.now();
      await enc.finish();
      encodeMs += performance.now() - t1;
      await rename(tmp, job.outPath);
      return { evaluateMs: stats.evaluateMs, renderMs: stats.drawMs, encodeMs };
    } catch (err) {
      await enc.kill();
      await rm(tmp, { force: true });
      throw err;
    }
  }

  /**
   * Pass 1 draws the frames once (the same pipeline as the MP4) and builds the palette; pass 2 re-reads the
   * pictures from disk. Progress: pass 1 fills the first GIF_PASS1_SHARE of the bar, pass 2 the rest; the frame
   * counts are the frames drawn (all of them once pass 2 runs).
   */
  private async gif(job: RenderJob, plan: Plan, page: ViewerPage, hooks: RenderHooks): Promise<StageTimes> {
    await mkdir(dirname(job.outPath), { recursive: true });
    const gif = new GifWriter({ ffmpegPath: this.o.ffmpegPath, width: plan.width, height: plan.height, fps: plan.fps, outPath: job.outPath });
    const stats: SequenceStats = { evaluateMs: 0, drawMs: 0, drawn: 0 };
    const total = plan.frames;
    let encodeMs = 0;
    try {
      for await (const pic of frameSequence(plan, page, job.source, hooks.signal, stats)) {
        if (hooks.signal.aborted) throw new Aborted();
        const t0 = performance.now();
        await gif.add(pic.rgba, pic.count);
        encodeMs += performance.now() - t0;
        const done = pic.first + pic.count;
        hooks.onProgress?.((GIF_PASS1_SHARE * done) / total, { done, total });
      }
      const t1 = performance.now();
      await gif.finish(
        (done) => hooks.onProgress?.(GIF_PASS1_SHARE + ((1 - GIF_PASS1_SHARE) * done) / total, { done: total, total }),
        () => hooks.signal.aborted,
      );
      encodeMs += performance.now() - t1;
      return { evaluateMs: stats.evaluateMs, renderMs: stats.drawMs, encodeMs };
    } catch (err) {
      await gif.abort();
      throw err;
    }
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
