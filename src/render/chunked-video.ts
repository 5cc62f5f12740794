// A long video rendered in one call, outside any queue (the standalone runner, GET /test, a direct render): its
// chunks one after another through the renderer's frame ranges, each a closed segment next to the output, then
// joined without re-encoding. The same cuts (src/contract/chunks.ts) and the same join (segment-join.ts) as a queued
// job's chunk and join items (src/server/jobs/work-items.ts, run-item.ts), so every path gives the same bytes; the
// renderer itself only ever renders one range.
import { rm } from 'node:fs/promises';
import { chunkRanges, isChunked } from '../contract/chunks.js';
import { stageError } from './failure-reasons.js';
import { Aborted } from './frame-sequence.js';
import type { JoinSegments } from './segment-join.js';
import {
  chunkSegmentPath,
  JobFailure,
  preparedOf,
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
    const sums: Record<string, number> = {};
    let first: RenderOutcome | undefined;
    try {
      for (const [i, range] of ranges.entries()) {
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
        for (const [k, v] of Object.entries(r.timings)) if (typeof v === 'number') sums[k] = (sums[k] ?? 0) + v;
      }
      if (hooks.signal.aborted) throw new Aborted();
      const t1 = performance.now();
      try {
        await this.join(
          segments,
          job.outPath,
          ranges.map((r) => r.to - r.from),
          job.params.codec,
        );
      } catch (err) {
        if (err instanceof JobFailure) throw err;
        throw stageError(err, job.kind);
      }
      const timings = Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, Math.round(v)]));
      return {
        width: first!.width,
        height: first!.height,
        runner: first!.runner,
        frames,
        timings: {
          ...(timings as unknown as RenderTimings),
          join_ms: Math.round(performance.now() - t1),
        },
      };
    } finally {
      await Promise.all(segments.map((p) => rm(p, { force: true })));
    }
  }

  private async prepare(job: RenderJob): Promise<PreparedJob | null> {
    const e = await this.inner.estimate?.(job);
    return e ? preparedOf(e) : null;
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
