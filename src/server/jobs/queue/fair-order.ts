// The render queue: which waiting job starts when a slot frees up, and where each job stands (queue_position).
//
// Policy (docs/durability.md, "Fair queue"): shortest estimated work first, with aging. A waiting job's priority is
// its estimated seconds minus the seconds it has waited (AGING_PER_SECOND); the lowest starts next, ties in arrival
// order. A short frame therefore overtakes a long video, but only while the video has waited less than the frame's
// advantage: once a job has waited as long as its own estimate, no job that arrives later can overtake it, so a
// long job waits at most its estimate plus the work already ahead of it. Jobs without an estimate count 0 and run in
// arrival order (recovered jobs, renderers that cannot estimate). A job may have several entries (a video's chunks,
// which share its id and estimate until it begins); each time one of its chunks is done, the chunks left are
// restamped as one chunk's work arriving now (restamp), so a job posted meanwhile goes between two chunks unless it is
// longer than a chunk; its join is added `first`, ahead of every waiting job, as it ends a job begun. The rows of a
// batch (a `group`) line up the same way: each time one of them starts, the rows left are restamped as arriving now,
// so a batch of a thousand rows that has waited long does not hold another client's job posted meanwhile behind all
// of them: that job goes in after the rows already rendering.

/** seconds of estimated work forgiven per second waited */
export const AGING_PER_SECOND = 1;

interface Waiting {
  id: string;
  task: () => Promise<unknown>;
  cost: number;
  since: number;
  seq: number;
  first: boolean;
  group?: string;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class FairOrder {
  private waiting: Waiting[] = [];
  /** entries running now, by id */
  private readonly running = new Map<string, number>();
  private runningCount = 0;
  private idle: (() => void)[] = [];
  private seq = 0;
  /** held: entries wait, none starts (a service warming up takes jobs before it can render them) */
  private held = false;

  constructor(
    private readonly concurrency: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Runs task when a slot frees up and the policy picks it; resolves/rejects with the task. costSeconds: its
   * estimate; first: ahead of every waiting entry; group: the batch the entry is a row of.
   */
  add<T>(id: string, task: () => Promise<T>, costSeconds = 0, first = false, group?: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({
        id,
        task,
        cost: Number.isFinite(costSeconds) ? Math.max(0, costSeconds) : 0,
        since: this.now(),
        seq: this.seq++,
        first,
        ...(group !== undefined ? { group } : {}),
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
    return [...this.waiting].sort((a, b) => Number(b.first) - Number(a.first) || score(a) - score(b) || a.seq - b.seq);
  }

  /** Entries added from now on wait until release(). */
  hold(): void {
    this.held = true;
  }

  /** Starts the waiting entries, as many as the slots allow. */
  release(): void {
    this.held = false;
    this.pump();
  }

  private pump(): void {
    while (!this.held && this.runningCount < this.concurrency && this.waiting.length) {
      const next = this.ordered()[0]!;
      this.waiting.splice(this.waiting.indexOf(next), 1);
      if (next.group !== undefined) {
        const now = this.now();
        for (const w of this.waiting) if (w.group === next.group) w.since = now;
      }
      this.running.set(next.id, (this.running.get(next.id) ?? 0) + 1);
      this.runningCount++;
      Promise.resolve()
        .then(next.task)
        .then(next.resolve, next.reject)
        .finally(() => {
          const n = (this.running.get(next.id) ?? 1) - 1;
          if (n) this.running.set(next.id, n);
          else this.running.delete(next.id);
          this.runningCount--;
          this.pump();
          this.checkIdle();
        });
    }
  }

  private checkIdle(): void {
    if (this.waiting.length || this.runningCount) return;
    const waiters = this.idle;
    this.idle = [];
    for (const w of waiters) w();
  }

  /**
   * 0 = rendering now, 1 = next, ...; undefined when the id is not queued. Jobs ahead are counted, not entries (a
   * video's chunks are one job), and not those `inHand` says have begun (out of the line, as a started job is).
   */
  position(id: string, inHand: (id: string) => boolean = () => false): number | undefined {
    if (this.running.has(id)) return 0;
    const ahead = new Set<string>();
    for (const w of this.ordered()) {
      if (w.id === id) return ahead.size + 1;
      if (!inHand(w.id)) ahead.add(w.id);
    }
    return undefined;
  }

  /**
   * A job's waiting entries line up again from now, each at `costSeconds`: what is left of a begun video (its next
   * chunks) is weighed as the work of one chunk that has just arrived, so a job posted while a chunk renders goes
   * between two chunks instead of behind the whole video's aged wait.
   */
  restamp(id: string, costSeconds: number): void {
    const now = this.now();
    for (const w of this.waiting)
      if (w.id === id && !w.first) {
        w.since = now;
        w.cost = Number.isFinite(costSeconds) ? Math.max(0, costSeconds) : 0;
      }
  }

  /** Takes a job's waiting entries out of the line; their tasks never run. */
  remove(id: string): boolean {
    return this.removeWhere((other) => other === id) > 0;
  }

  /** Takes the waiting entries whose id `drop` picks out of the line; their tasks never run. Returns how many. */
  removeWhere(drop: (id: string) => boolean): number {
    const gone = this.waiting.filter((w) => drop(w.id));
    if (!gone.length) return 0;
    this.waiting = this.waiting.filter((w) => !drop(w.id));
    for (const w of gone) w.resolve(undefined);
    this.checkIdle();
    return gone.length;
  }

  /** Entries waiting and running. */
  get size(): number {
    return this.waiting.length + this.runningCount;
  }

  get inHand(): number {
    return this.runningCount;
  }

  onIdle(): Promise<void> {
    if (!this.waiting.length && !this.runningCount) return Promise.resolve();
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
