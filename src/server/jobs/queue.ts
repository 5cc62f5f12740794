// First-in-first-out render queue over p-queue, tracking which jobs wait and which run (for queue_position).
import PQueue from 'p-queue';

export class RenderQueue {
  private readonly q: PQueue;
  private readonly waiting: string[] = [];
  private readonly running = new Set<string>();

  constructor(concurrency: number) {
    this.q = new PQueue({ concurrency });
  }

  /** Runs task when a slot frees up; resolves/rejects with the task. */
  add<T>(id: string, task: () => Promise<T>): Promise<T> {
    this.waiting.push(id);
    return this.q.add(async () => {
      const i = this.waiting.indexOf(id);
      if (i >= 0) this.waiting.splice(i, 1);
      this.running.add(id);
      try {
        return await task();
      } finally {
        this.running.delete(id);
      }
    }) as Promise<T>;
  }

  /** 0 = rendering now, 1 = next, ...; undefined when the id is not queued. */
  position(id: string): number | undefined {
    if (this.running.has(id)) return 0;
    const i = this.waiting.indexOf(id);
    return i >= 0 ? i + 1 : undefined;
  }

  /** Takes a waiting job out of the line (its task, once dequeued, finds the job ended and does nothing). */
  remove(id: string): boolean {
    const i = this.waiting.indexOf(id);
    if (i < 0) return false;
    this.waiting.splice(i, 1);
    return true;
  }

  get size(): number {
    return this.waiting.length + this.running.size;
  }

  onIdle(): Promise<void> {
    return this.q.onIdle();
  }

  /** Drops the jobs still waiting (their tasks never run); returns how many. */
  clear(): number {
    const n = this.waiting.length;
    this.q.clear();
    this.waiting.length = 0;
    return n;
  }
}
