// One Renderer made of several, chosen by the job's kind: the composition roots (the service, the runner) give the
// drawn kinds to the Chromium renderer and mesh/vectorize to the export worker, and the job service sees one door.
import { CODE } from '../contract/error-codes.js';
import {
  JobFailure,
  type Renderer,
  type RenderHooks,
  type RenderJob,
  type RenderKind,
  type RenderOutcome,
  type RendererCounters,
  type WorkEstimate,
} from './renderer-port.js';

export class RendererByKind implements Renderer {
  private readonly unique: Renderer[];

  constructor(private readonly byKind: Partial<Record<RenderKind, Renderer>>) {
    this.unique = [...new Set(Object.values(byKind))];
  }

  render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    const r = this.byKind[job.kind];
    if (!r)
      return Promise.reject(
        new JobFailure(`render failed: this service does not make ${job.kind} outputs`, CODE.internal_error),
      );
    return r.render(job, hooks);
  }

  /** The estimate of the renderer that would make the job (admission and the queue's order), if it gives one. */
  async estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>): Promise<WorkEstimate | null> {
    return (await this.byKind[job.kind]?.estimate?.(job)) ?? null;
  }

  /** The first fault of the renderers behind it. */
  fault(): string | null {
    for (const r of this.unique) {
      const f = r.fault?.();
      if (f) return f;
    }
    return null;
  }

  /** What of the renderer for this kind changes the bytes it makes (the render cache's key), if it says. */
  setup(kind: RenderKind): string | null | undefined {
    return this.byKind[kind]?.setup?.(kind);
  }

  /** One after the other, in the order given: the browser's warm-up does not compete with a worker's for the CPU. */
  async start(): Promise<void> {
    for (const r of this.unique) await r.start();
  }

  async close(): Promise<void> {
    await Promise.all(this.unique.map((r) => r.close()));
  }

  /** The sums of the parts' counters. */
  counters(): RendererCounters {
    const sum: RendererCounters = { chromiumLaunches: 0, pageCrashes: 0, compiles: 0 };
    for (const r of this.unique) {
      const c = r.counters?.();
      if (!c) continue;
      sum.chromiumLaunches += c.chromiumLaunches;
      sum.pageCrashes += c.pageCrashes;
      sum.compiles += c.compiles;
    }
    return sum;
  }
}
