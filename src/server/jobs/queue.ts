// The render queue: which waiting job starts when a slot frees up, and where each job stands (queue_position).
//
// Policy (docs/durability.md, "Fair queue"): shortest estimated work first, with aging. A waiting job's priority is
// its estimated seconds minus the seconds it has waited (AGING_PER_SECOND); the lowest starts next, ties in arrival
// order. A short frame therefore overtakes a long video, but only while the video has waited less than the frame's
// advantage: once a job has waited as long as its own estimate, no job that arrives later can overtake it, so a
// long job waits at most its estimate plus the work already ahead of it. Jobs without an estimate count 0 and run in
// arrival order (recovered jobs, renderers that cannot estimate).

/** seconds of estimated work forgiven per second waited */
export const AGING_PER_SECOND = 1;

interface Waiting {
  id: string;
  task: () => Promise<unknown>;
  cost: number;
  since: number;
  seq: number;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class RenderQueue {
  private waiting: Waiting[] = [];
  private readonly running = new Set<string>();
  private idle: (() => void)[] = [];
  private seq = 0;

  constructor(
    private readonly concurrency: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs task when a slot frees up and the policy picks it; resolves/rejects with the task. costSeconds: its estimate. */
  add<T>(id: string, task: () => Promise<T>, costSeconds = 0): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        id,
        task,
        cost: Number.isFinite(costSeconds) ? Math.max(0, costSeconds) : 0,
        since: this.now(),
        seq: this.seq++,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.pump();
    });
  }

  /** The waiting jobs in the order they would start now. */
  private ordered(): Waiting[] {
    const now = this.now();
    const score = (w: Waiting) => w.cost - (AGING_PER_SECOND * (now - w.since)) / 1000;
    return [...this.waiting].sort((a, b) => score(a) - score(b) || a.seq - b.seq);
  }

  private pump(): void {
    while (this.running.size < this.concurrency && this.waiting.length) {
      const next = this.ordered()[0]!;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.running.add(next.id);
      Promise.resolve()
        .then(next.task)
        .then(next.resolve, next.reject)
        .finally(() => {
          this.running.delete(next.id);
          this.pump();
          this.checkIdle();
        });
    }
  }

  private checkIdle(): void {
    if (this.waiting.length || this.running.size) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }

  /** 0 = rendering now, 1 = next, ...; undefined when the id is not queued. */
  position(id: string): number | undefined {
    if (this.running.has(id)) return 0;
    const i = this.ordered().findIndex((w) => w.id === id);
    return i >= 0 ? i + 1 : undefined;
  }

  /** Takes a waiting job out of the line; its task never runs. */
  remove(id: string): boolean {
    const i = this.waiting.findIndex((w) => w.id === id);
    if (i < 0) return false;
    const [w] = this.waiting.splice(i, 1);
    w!.resolve(undefined);
    this.checkIdle();
    return true;
  }

  get size(): number {
    return this.waiting.length + this.running.size;
  }

  onIdle(): Promise<void> {
    if (!this.waiting.length && !this.running.size) return Promise.resolve();
    return new Promise((r) => this.idle.push(r));
  }

  /** Drops the jobs still waiting (their tasks never run and their promises never settle); returns how many. */
  clear(): number {
    const n = this.waiting.length;
    this.waiting = [];
    this.checkIdle();
    return n;
  }
}
