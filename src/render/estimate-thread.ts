// Admission estimates (work-estimate.ts) made off the main thread: one worker, started on first use and kept, asked
// one job at a time in order. A source whose estimate takes longer than ESTIMATE_TIMEOUT_MS gets none (the worker
// is stopped and a new one started for the next), so a request never waits on it for long; such a job is still
// bounded by its work budget and the job limit. Its heap is capped like the evaluation thread's (EVAL_HEAP_LIMITS): a
// source that passes it costs only this thread, and the job gets no estimate.
import type { Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { EVAL_HEAP_LIMITS, startWorker } from './worker-thread.js';
import type { EstimateAnswer, EstimateRequest } from './estimate-worker.js';
import type { RenderJob, WorkEstimate } from './renderer-port.js';

export const ESTIMATE_TIMEOUT_MS = 10_000;

export class EstimateThread {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, (e: WorkEstimate | null) => void>();

  constructor(private readonly log?: Logger) {}

  estimate(job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>): Promise<WorkEstimate | null> {
    const worker = this.ensure();
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.log?.warn({ kind: job.kind }, 'admission estimate took too long; the job gets none');
        this.stop(worker);
      }, ESTIMATE_TIMEOUT_MS);
      this.waiting.set(id, (e) => {
        clearTimeout(timer);
        resolve(e);
      });
      worker.postMessage({
        id,
        job: { kind: job.kind, source: job.source, params: job.params, assets: job.assets, args: job.args },
      } satisfies EstimateRequest);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    if (w) this.stop(w);
  }

  private ensure(): Worker {
    if (this.worker) return this.worker;
    const w = startWorker(import.meta.url, 'estimate-worker', EVAL_HEAP_LIMITS);
    w.unref(); // an idle estimator never keeps the process alive
    w.on('message', (a: EstimateAnswer) => {
      const done = this.waiting.get(a.id);
      this.waiting.delete(a.id);
      done?.(a.estimate);
    });
    w.on('error', (err) => {
      this.log?.warn({ err }, 'admission estimate thread failed');
      this.stop(w);
    });
    w.on('exit', () => this.stop(w));
    this.worker = w;
    return w;
  }

  /** Stops a worker and answers everything it still owed with "no estimate". */
  private stop(w: Worker): void {
    if (this.worker !== w) return;
    this.worker = null;
    void w.terminate();
    const owed = [...this.waiting.values()];
    this.waiting.clear();
    for (const done of owed) done(null);
  }
}
