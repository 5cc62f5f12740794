// Where a job's time went, stage by stage (issue 11: every speed change is judged by the stage it targets).
// Sums over all frames, in ms; stages of a pipelined video overlap, so they add up to more than the wall time.
//   evaluate  waiting for scene values (their  draw      build + submit in the page (WebGL)
//             worker thread, eval-thread.ts)
//   read      readPixels + flip in the page  pack      run-length encode in the page
//   transfer  page -> Node over DevTools     decode    run-length decode in Node
//   convert   RGBA -> I420 (video)           encode    ffmpeg writes (video, GIF) or PNG encode (frame)
//   write     file writes and renames
export const STAGES = ['evaluate', 'draw', 'read', 'pack', 'transfer', 'decode', 'convert', 'encode', 'write'] as const;
export type Stage = (typeof STAGES)[number];
export type StageTimings = { [S in Stage as `${S}_ms`]?: number };

export class StageClock {
  private readonly ms = new Map<Stage, number>();

  add(stage: Stage, ms: number): void {
    this.ms.set(stage, (this.ms.get(stage) ?? 0) + ms);
  }

  /** Runs fn and adds its time (sync or async) to stage. */
  async time<T>(stage: Stage, fn: () => T | Promise<T>): Promise<T> {
    const t0 = performance.now();
    try {
      return await fn();
    } finally {
      this.add(stage, performance.now() - t0);
    }
  }

  get(stage: Stage): number {
    return this.ms.get(stage) ?? 0;
  }

  /** The stages that took any time, as `<stage>_ms` rounded to 0.1 ms. */
  timings(): StageTimings {
    const out: StageTimings = {};
    for (const s of STAGES) {
      const v = this.ms.get(s);
      if (v !== undefined) out[`${s}_ms`] = Math.round(v * 10) / 10;
    }
    return out;
  }
}
