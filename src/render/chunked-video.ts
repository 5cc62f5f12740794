// A long video rendered in one call, outside any queue (the standalone runner, GET /test, the CLI): its chunks one
// after another through the renderer's frame ranges, each a closed segment next to the output, then joined without
// re-encoding. The same plan (src/contract/chunks.ts: the cuts, each segment's frames, the stage times summed) and
// the same join (ffmpeg/join.ts) as a queued job's chunk and join items (src/server/jobs/work-items.ts, run-item.ts,
// join-item.ts), so every path gives the same bytes; the renderer itself only ever renders one range.
import { rm } from 'node:fs/promises';
import { chunkedTimings, chunkFrames, chunkRanges, isChunked } from '../contract/chunks.js';
import { stageError } from './failure-reasons.js';
import { Aborted } from './frame-sequence.js';
import type { JoinSegments } from './renderer-port.js';
import {
  chunkSegmentPath,
  JobFailure,
  type PreparedJob,
  type RenderHooks,
  type RenderJob,
  type RenderKind,
  type RenderOutcome,
  type Renderer,
  type RendererCounters,
  type RenderTimings,
  type WorkEstimate,
} from './renderer-port.js';

export class ChunkedVideos implements Renderer {
  constructor(
    private readonly inner: Renderer,
    private readonly join: JoinSegments,
  ) {}

  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    if (job.kind !== 'video' || job.frames) return this.inner.render(job, hooks);
    // the frame count from the job's estimate, whose thread keeps the compiled program for the chunks' renders; no
    // estimate (a source that does not compile): rendered whole, where it fails with its own diagnostic
    const prepared = job.prepared ?? (await this.prepare(job));
    if (!prepared || !isChunked(prepared.frames)) return this.inner.render(job, hooks);
    const frames = prepared.frames;
    const ranges = chunkRanges(frames);
    const segments = ranges.map((_, i) => chunkSegmentPath(job.outPath, i));
    const done: { ms: number; timings: RenderTimings }[] = [];
    let first: RenderOutcome | undefined;
    try {
      for (const [i, range] of ranges.entries()) {
        const t0 = performance.now();
        const r = await this.inner.render(
          { ...job, prepared, frames: range, outPath: segments[i]! },
          {
            signal: hooks.signal,
            onProgress: (_p, f) => {
              const done = range.from + (f?.done ?? 0);
              hooks.onProgress?.(done / frames, { done, total: frames });
            },
          },
        );
        first ??= r;
        done.push({ ms: performance.now() - t0, timings: r.timings });
      }
      if (hooks.signal.aborted) throw new Aborted();
      const t1 = performance.now();
      try {
        await this.join(segments, job.outPath, chunkFrames(frames), job.params.codec);
      } catch (err) {
        if (err instanceof JobFailure) throw err;
        throw stageError(err, job.kind);
      }
      return {
        width: first!.width,
        height: first!.height,
        runner: first!.runner,
        frames,
        timings: chunkedTimings(done, performance.now() - t1) as unknown as RenderTimings,
      };
    } finally {
      await Promise.all(segments.map((p) => rm(p, { force: true })));
    }
  }

  private async prepare(job: RenderJob): Promise<PreparedJob | null> {
    const e = await this.inner.estimate?.(job);
    return e ? { program: e.program, frames: e.frames, width: e.width, height: e.height } : null;
  }

  estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>): Promise<WorkEstimate | null> {
    return this.inner.estimate?.(job) ?? Promise.resolve(null);
  }

  setup(kind: RenderKind): string | null | undefined {
    return this.inner.setup?.(kind);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  fault(): string | null {
    return this.inner.fault?.() ?? null;
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  counters(): RendererCounters {
    return this.inner.counters?.() ?? { chromiumLaunches: 0, pageCrashes: 0, compiles: 0 };
  }
}
