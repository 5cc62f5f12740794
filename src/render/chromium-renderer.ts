// The Chromium renderer: compile and evaluate in a worker thread (eval-thread.ts: prepare.ts, then each frame; the
// event loop never runs an evaluation), sequence the frames (frame-sequence.ts), draw the values in a warm
// drawing page, and write the PNG (png.ts), stream the pictures into one ffmpeg process (ffmpeg/video.ts) or make a GIF
// in two passes over them (gif-encoder.ts).
import { rename, rm, writeFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Logger } from 'pino';
import { WarmBrowser } from './page/warm-browser.js';
import type { ViewerPage } from './page/viewer-page.js';
import { VideoEncoder } from './ffmpeg/video.js';
import { encodeStill } from './ffmpeg/stills.js';
import { nvencProblem } from './ffmpeg/nvenc.js';
import { rgbaToI420Async } from './rgba-to-i420.js';
import { encodePngAsync } from './png.js';
import { GifWriter, GIF_PASS1_SHARE } from './gif-encoder.js';
import type { PlanInfo } from './prepare.js';
import { EvalThreads, type EvalSession } from './eval-thread.js';
import {
  Aborted,
  drawFrame,
  frameSequence,
  GlLost,
  pageFailure,
  type DrawOptions,
  type SequenceStats,
} from './frame-sequence.js';
import { stageError } from './failure-reasons.js';
import { StageClock } from './stage-times.js';
import {
  JobFailure,
  type Renderer,
  type RenderHooks,
  type RenderJob,
  type RenderOutcome,
  type RendererCounters,
  type WorkEstimate,
} from './renderer-port.js';
import { LIMITS } from '../contract/limits.js';
import { CODE } from '../contract/error-codes.js';
import type { GlProbe, GlSetting } from './gl-backend.js';
import type { VideoEncoderName } from '../contract/hardware.js';

export interface ChromiumRendererOptions {
  chromiumPath: string;
  ffmpegPath?: string;
  viewerDir?: string;
  log: Logger;
  /** idle warm pages kept ready (default: the render concurrency) */
  concurrency?: number;
  /** where video frames become I420: in the page (default) or in Node from RGBA; same bytes */
  videoReadback?: 'i420' | 'rgba';
  /** pages that draw the frames of one video or GIF in turn (default 2); the bytes do not depend on it */
  videoPages?: number;
  /** one frame's draw in the page longer than this ends the job with frame_budget (default LIMITS.frameDrawMs) */
  frameBudgetMs?: number;
  /**
   * pages redraw and send only what changed since their previous frame of a clip (default true); false draws
   * every frame whole (the same bytes: kept for the bench and the tests)
   */
  partialRedraw?: boolean;
  /** which GL draws the frames (gl-backend.ts; default auto: egl when it draws, else swiftshader) */
  gl?: GlSetting;
  /** the H.264 encoder (default x264, the bit-exact reference); nvenc is checked at start */
  encoder?: VideoEncoderName;
}

const DEFAULT_VIDEO_PAGES = 2;

/** below this many frames a second page costs more to load than it saves */
const MIN_FRAMES_FOR_MORE_PAGES = 8;

/** tries after pages lost their GL: on fresh pages of the same browser, then in a relaunched browser */
const GL_RETRIES = 2;

interface StageTimes {
  evaluateMs: number;
  renderMs: number;
  encodeMs: number;
  clock: StageClock;
}

export class ChromiumRenderer implements Renderer {
  readonly browser: WarmBrowser;
  private readonly evals: EvalThreads;

  constructor(private readonly o: ChromiumRendererOptions) {
    // an idle thread per render slot (each keeps the program of the job it rendered) and one for the estimates
    this.evals = new EvalThreads({ log: o.log, keepIdle: Math.max(1, o.concurrency ?? 1) + 1 });
    this.browser = new WarmBrowser({
      chromiumPath: o.chromiumPath,
      viewerDir: o.viewerDir,
      log: o.log,
      gl: o.gl,
      // a clip job takes up to videoPages pages: keep that many per render slot once a video has asked for them; a
      // start warms one per slot (what a frame needs), so a service that draws only frames never loads the others
      poolSize: Math.max(1, o.concurrency ?? 1) * Math.max(1, o.videoPages ?? DEFAULT_VIDEO_PAGES),
      startPages: Math.max(1, o.concurrency ?? 1),
    });
  }

  private get drawOptions(): DrawOptions {
    return { budgetMs: this.o.frameBudgetMs ?? LIMITS.frameDrawMs, partial: this.o.partialRedraw ?? true };
  }

  async start(): Promise<void> {
    if (this.o.encoder === 'nvenc') {
      const problem = await nvencProblem(this.o.ffmpegPath);
      if (problem)
        throw new Error(
          `RENDER_ENCODER=nvenc but h264_nvenc cannot encode here (${problem}): it needs an NVIDIA GPU and its driver; unset RENDER_ENCODER for libx264`,
        );
    }
    await this.browser.start();
    this.o.log.info({ encoder: this.o.encoder ?? 'x264' }, 'video encoder');
  }

  /** Why the renderer cannot draw now (its browser failed to recover a GL), or null. */
  fault(): string | null {
    return this.browser.fault;
  }

  /** The GL backend and the video encoder: what of this renderer changes the bytes it draws (null before start). */
  setup(): string | null {
    const gl = this.gl;
    return gl ? `gl=${gl.backend} (${gl.renderer}) encoder=${this.o.encoder ?? 'x264'}` : null;
  }

  /** The GL backend frames are drawn by, once started. */
  get gl(): GlProbe | null {
    return this.browser.gl;
  }

  /**
   * Made in an evaluation thread (eval-thread.ts), so a burst of large sources does not hold the HTTP answers; the
   * thread keeps the job's compiled program for its render.
   */
  estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>): Promise<WorkEstimate | null> {
    return this.evals.estimate(job);
  }

  async close(): Promise<void> {
    await this.evals.close();
    await this.browser.close();
  }

  counters(): RendererCounters {
    return {
      chromiumLaunches: this.browser.launches,
      pageCrashes: this.browser.pageCrashes,
      compiles: this.evals.compiles,
    };
  }

  /**
   * One output, or one chunk's segment (job.frames): the job's plan from an evaluation thread (its program compiled
   * there by the estimate, kept by key), pages leased and loaded, then the frame, the GIF or the video. When the
   * pages lose their GL mid-job (a dead GPU process), the browser is made to draw again (warm-browser.ts recover())
   * and the job is tried again on fresh pages; if those lose it too, once more in a relaunched browser.
   */
  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    if (job.kind === 'mesh' || job.kind === 'vectorize')
      throw new JobFailure(`render failed: a ${job.kind} is not drawn by the page`, CODE.internal_error);
    const t0 = performance.now();
    const session = await this.evals.open(job, hooks.signal);
    const compileMs = performance.now() - t0;
    const plan = session.plan;
    let healthy = false;
    try {
      for (let lost = 0; ; lost++) {
        if (hooks.signal.aborted) throw new Aborted();
        const pages = [await this.browser.acquire()];
        let pagesHealthy = false;
        let retry = false;
        const onAbort = () => pages.forEach((p) => void p.close());
        hooks.signal.addEventListener('abort', onAbort, { once: true });
        try {
          await this.load(job, plan, pages, hooks.signal);
          const r =
            job.kind === 'frame'
              ? await this.frame(job, plan, pages[0]!)
              : job.kind === 'gif'
                ? await this.gif(job, session, pages, hooks)
                : await this.video(job, session, pages, hooks);
          pagesHealthy = healthy = true;
          return {
            width: plan.width,
            height: plan.height,
            runner: plan.runner,
            frames: plan.frames,
            timings: {
              ...r.clock.timings(),
              compile_ms: round(compileMs),
              evaluate_ms: round(r.evaluateMs),
              render_ms: round(r.renderMs),
              encode_ms: round(r.encodeMs),
            },
          };
        } catch (err) {
          if (hooks.signal.aborted) throw new Aborted();
          // pages that lost their GL cannot draw again: released unhealthy, closed
          if (err instanceof GlLost) {
            if (lost >= GL_RETRIES) throw err;
            retry = true;
          } else if (err instanceof JobFailure) {
            pagesHealthy = true; // a page that failed the job closed itself; the others can serve the next job
            throw err;
          } else {
            this.o.log.warn({ err, job_id: job.id }, 'render stage failed');
            throw stageError(err, job.kind);
          }
        } finally {
          hooks.signal.removeEventListener('abort', onAbort);
          for (const page of pages) this.browser.release(page, pagesHealthy && !page.closed);
        }
        if (retry) {
          this.o.log.warn(
            { job_id: job.id, lost: lost + 1 },
            'the drawing pages lost their GL; recovering and trying the job again',
          );
          // the first time the browser is kept if a probe frame draws; when fresh pages lose it too, a new browser
          await this.browser.recover({ relaunch: lost > 0 });
        }
      }
    } finally {
      // a session left mid-evaluation (a failure, an abort, the job limit) stops its thread
      session.close(healthy);
    }
  }

  /** The pages a job draws with (the first one leased already), each loaded at the plan's size with its images. */
  private async load(job: RenderJob, plan: PlanInfo, pages: ViewerPage[], signal: AbortSignal): Promise<void> {
    const wanted = this.pagesFor(job, plan);
    while (pages.length < wanted) pages.push(await this.browser.acquire());
    if (signal.aborted) throw new Aborted();
    const loads = await Promise.all(
      pages.map((page) => {
        page.assets = plan.assets.byUrlPath;
        return page.load({
          width: plan.width,
          height: plan.height,
          runner: plan.runner,
          transparent: job.params.transparent === true,
        });
      }),
    );
    const refused = loads.find((l) => !l.ok);
    if (refused && !refused.ok) {
      this.o.log.warn({ job_id: job.id, page_error: refused.error }, 'drawing page refused the load');
      throw pageFailure(refused.error);
    }
  }

  /**
   * Pages that draw a clip's frames in turn: a frame, a scene that never changes, or a clip of a few frames takes
   * one; a longer clip takes videoPages (default 2): with software WebGL one page leaves part of the machine idle
   * while its picture is read back and moved out.
   */
  private pagesFor(job: RenderJob, plan: PlanInfo): number {
    if (job.kind === 'frame' || plan.first.timeFree || plan.frames < MIN_FRAMES_FOR_MORE_PAGES) return 1;
    return Math.max(1, this.o.videoPages ?? DEFAULT_VIDEO_PAGES);
  }

  private async frame(job: RenderJob, plan: PlanInfo, page: ViewerPage): Promise<StageTimes> {
    const clock = new StageClock();
    const t0 = performance.now();
    const format = job.params.format ?? 'png';
    // an opaque PNG takes the picture as the page read it (bottom row first, alpha as drawn): the encoder packs the
    // rows in its own pass anyway, so the page's flip, alpha pass and copy are saved; the same bytes
    const asRead = format === 'png' && job.params.transparent !== true;
    const rgba = await drawFrame(page, plan, job.source, plan.first, null, {
      ...this.drawOptions,
      clock,
      ...(asRead ? { format: 'rgba-as-read' as const } : {}),
    });
    const t1 = performance.now();
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    if (format === 'png') {
      const input = asRead ? { bottomUp: true, opaque: true } : {};
      const png = await clock.time('encode', () => encodePngAsync(rgba, plan.width, plan.height, 6, input));
      await clock.time('write', () => writeFile(tmp, png));
    } else {
      // ffmpeg writes the file itself: encoding and writing are one stage here
      const o = { ffmpegPath: this.o.ffmpegPath, width: plan.width, height: plan.height, format, outPath: tmp };
      await clock
        .time('encode', () => encodeStill(rgba, { ...o, quality: job.params.quality }))
        .catch(async (err: unknown) => {
          await rm(tmp, { force: true });
          throw err;
        });
    }
    await clock.time('write', () => rename(tmp, job.outPath));
    return { evaluateMs: 0, renderMs: t1 - t0, encodeMs: performance.now() - t1, clock };
  }

  private async video(
    job: RenderJob,
    session: EvalSession,
    pages: ViewerPage[],
    hooks: RenderHooks,
  ): Promise<StageTimes> {
    const plan = session.plan;
    await mkdir(dirname(job.outPath), { recursive: true });
    const tmp = `${job.outPath}.tmp`;
    // a chunk's frames count from the start of the video's range; the sequence takes indices into the whole clip
    const chunk = job.frames ?? { from: 0, to: plan.frames };
    const range = { from: plan.start + chunk.from, to: plan.start + chunk.to };
    const total = range.to - range.from;
    const transparent = job.params.transparent === true;
    const enc = new VideoEncoder({
      ffmpegPath: this.o.ffmpegPath,
      width: plan.width,
      height: plan.height,
      fps: plan.fps,
      outPath: tmp,
      container: job.frames ? 'mpegts' : 'mp4',
      encoder: this.o.encoder,
      codec: job.params.codec,
      quality: job.params.quality,
      transparent,
    });
    const clock = new StageClock();
    const stats: SequenceStats = { clock, drawMs: 0, drawn: 0 };
    let encodeMs = 0;
    try {
      // By default the page converts each frame to I420: 1.5 bytes a pixel leave it, and ffmpeg takes
      // them as they are. 'rgba' reads RGBA and converts in Node (the same bytes; kept for the bench and the tests).
      // a transparent video takes RGBA as it is (ffmpeg makes it YUV with alpha)
      const inPage = this.o.videoReadback !== 'rgba' && !transparent;
      for await (const pic of frameSequence(
        plan,
        session.cursor(range.from === 0 ? 1 : range.from, range.to),
        pages,
        job.source,
        hooks.signal,
        stats,
        { format: inPage ? 'i420' : 'rgba', ...this.drawOptions },
        range,
      )) {
        const t0 = performance.now();
        const yuv = inPage || transparent ? pic.pixels : await rgbaToI420Async(pic.pixels, plan.width, plan.height);
        const t1 = performance.now();
        if (!inPage) clock.add('convert', t1 - t0);
        for (let k = 0; k < pic.count; k++) {
          if (hooks.signal.aborted) throw new Aborted();
          await enc.write(yuv);
          const done = pic.first - range.from + k + 1;
          hooks.onProgress?.(done / total, { done, total });
        }
        clock.add('encode', performance.now() - t1);
        encodeMs += performance.now() - t0;
      }
      const t1 = performance.now();
      await enc.finish();
      clock.add('encode', performance.now() - t1);
      encodeMs += performance.now() - t1;
      await clock.time('write', () => rename(tmp, job.outPath));
      return { evaluateMs: clock.get('evaluate'), renderMs: stats.drawMs, encodeMs, clock };
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
  private async gif(
    job: RenderJob,
    session: EvalSession,
    pages: ViewerPage[],
    hooks: RenderHooks,
  ): Promise<StageTimes> {
    const plan = session.plan;
    await mkdir(dirname(job.outPath), { recursive: true });
    const gif = new GifWriter({
      ffmpegPath: this.o.ffmpegPath,
      width: plan.width,
      height: plan.height,
      fps: plan.fps,
      outPath: job.outPath,
      loop: job.params.loop,
      colors: job.params.colors,
    });
    const clock = new StageClock();
    const stats: SequenceStats = { clock, drawMs: 0, drawn: 0 };
    const total = plan.frames;
    let encodeMs = 0;
    try {
      const frames = session.cursor(1, plan.frames);
      for await (const pic of frameSequence(plan, frames, pages, job.source, hooks.signal, stats, this.drawOptions)) {
        if (hooks.signal.aborted) throw new Aborted();
        const t0 = performance.now();
        await gif.add(pic.pixels, pic.count);
        encodeMs += performance.now() - t0;
        clock.add('encode', performance.now() - t0);
        const done = pic.first + pic.count;
        hooks.onProgress?.((GIF_PASS1_SHARE * done) / total, { done, total });
      }
      const t1 = performance.now();
      await gif.finish(
        (done) => hooks.onProgress?.(GIF_PASS1_SHARE + ((1 - GIF_PASS1_SHARE) * done) / total, { done: total, total }),
        () => hooks.signal.aborted,
      );
      encodeMs += performance.now() - t1;
      clock.add('encode', performance.now() - t1);
      return { evaluateMs: clock.get('evaluate'), renderMs: stats.drawMs, encodeMs, clock };
    } catch (err) {
      await gif.abort();
      throw err;
    }
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
