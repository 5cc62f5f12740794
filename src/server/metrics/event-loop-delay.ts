// The event loop's delay as /readyz reads it: the mean delay of Node's 10 ms ticks over each one-second sample
// (perf_hooks' monitorEventLoopDelay), the measure @fastify/under-pressure took.
//
// Our own because under-pressure's timer also read process.memoryUsage() each second, uncaught: with the process's
// open files used up (1,100 half-open connections under a 1,024 limit) reading the resident set size (a /proc file)
// threw EMFILE from the timer and the process exited (issue 55). This reads no file, and a sample that throws for
// any reason is skipped (the last measure stands) and logged once per kind, never thrown.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** the histogram's tick: a tick is late by its delay past this */
const RESOLUTION_MS = 10;
const SAMPLE_EVERY_MS = 1_000;

export class EventLoopDelay {
  private readonly histogram: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private timer?: NodeJS.Timeout;
  private last = 0;
  private readonly told = new Set<string>();

  constructor(private readonly onSkip: (err: unknown) => void = () => {}) {}

  start(): void {
    this.histogram.enable();
    this.timer = setInterval(() => this.sample(), SAMPLE_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.histogram.disable();
  }

  /** Mean delay in ms over the last whole sample; Infinity when the loop was held through it (not one tick). */
  get ms(): number {
    return this.last;
  }

  private sample(): void {
    try {
      const mean = this.histogram.mean / 1e6 - RESOLUTION_MS;
      this.last = Number.isNaN(mean) ? Infinity : Math.max(0, mean);
      this.histogram.reset();
    } catch (err) {
      const kind = (err as NodeJS.ErrnoException)?.code ?? String(err);
      if (this.told.has(kind)) return;
      this.told.add(kind);
      this.onSkip(err);
    }
  }
}
