// Mesh and vectorize behind the service's Renderer interface (src/render/renderer-port.ts), so these jobs get the queue,
// progress, the time limit, cancel, retention and the journal exactly as drawn jobs do. The work runs in worker
// threads: a trace or an extrusion is seconds of synchronous CPU at worst, which on the main thread would stall
// every HTTP answer; a thread can also be stopped mid-work (terminate) on cancel or time limit, and its heap is
// capped so a huge input fails the job, not the service.
import type { Worker } from 'node:worker_threads';
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { newestRunner } from '../../viewer/src/meshes/constants.js';
import {
  JobFailure,
  type Renderer,
  type RenderHooks,
  type RenderJob,
  type RenderOutcome,
} from '../render/renderer-port.js';
import { startWorker } from '../render/worker-thread.js';
import { CODE } from '../contract/error-codes.js';
import type { WorkerAnswer } from './export-worker.js';
import type { ExportTask } from './export-job.js';

export interface ExportRendererOptions {
  log: Logger;
  /** idle threads kept warm (default 1): a fresh one takes about 0.3 s to load three.js and the tracer */
  maxIdle?: number;
  /** heap cap of each thread in MB (default 2048; the export limits stay under about 0.5 GB) */
  memoryMb?: number;
}

const KINDS = new Set(['mesh', 'vectorize']);

export class ExportRenderer implements Renderer {
  private idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private closed = false;
  /** the first thread, loading while the service starts: readiness does not wait for it, the first job does */
  private warming: Promise<void> | null = null;

  private readonly log: Logger;
  private readonly maxIdle?: number;
  private readonly memoryMb?: number;

  constructor({ log, maxIdle, memoryMb }: ExportRendererOptions) {
    this.log = log;
    this.maxIdle = maxIdle;
    this.memoryMb = memoryMb;
  }

  /** Geometry in Node: no GL, no encoder; the same code gives the same bytes wherever it runs. */
  setup(): string {
    return 'export';
  }

  async start(): Promise<void> {
    this.closed = false;
    if (this.idle.length || this.warming) return;
    this.warming = this.spawn()
      .then(
        (w) => void this.release(w),
        (err) => this.log.warn({ err }, 'export worker warm-up failed (the first job starts one)'),
      )
      .finally(() => (this.warming = null));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.warming;
    const all = [...this.all];
    this.all.clear();
    this.idle = [];
    await Promise.all(all.map((w) => w.terminate()));
  }

  async render(job: RenderJob, hooks: RenderHooks): Promise<RenderOutcome> {
    if (!KINDS.has(job.kind))
      throw new JobFailure(`render failed: a ${job.kind} is not made by the export worker`, CODE.internal_error);
    if (hooks.signal.aborted) throw new Error('aborted');
    if (!this.idle.length && this.warming) await this.warming;
    const worker = this.idle.pop() ?? (await this.spawn());
    hooks.onProgress?.(0, { done: 0, total: 1 });
    const task: ExportTask = {
      kind: job.kind as ExportTask['kind'],
      source: job.source,
      params: { ...job.params },
      assets: job.assets,
      outPath: job.outPath,
    };
    let answer: WorkerAnswer;
    try {
      answer = await this.ask(worker, task, hooks.signal);
    } catch (err) {
      this.drop(worker);
      await rm(`${job.outPath}.tmp`, { force: true });
      if (hooks.signal.aborted) throw err;
      this.log.warn({ err, job_id: job.id }, 'export worker stopped');
      throw new JobFailure(
        `${job.kind} failed: the export worker stopped (${err instanceof Error ? err.message : String(err)})`,
        CODE.internal_error,
      );
    }
    this.release(worker);
    if (!answer.ok) {
      // an internal error's text is for the log, not for the client (failure-reasons.ts)
      if (answer.code === CODE.internal_error)
        this.log.warn({ job_id: job.id, message: answer.message }, 'export failed');
      throw answer.code === CODE.internal_error
        ? new JobFailure(`${job.kind} failed: internal error`, CODE.internal_error)
        : new JobFailure(answer.message, answer.code);
    }
    hooks.onProgress?.(1, { done: 1, total: 1 });
    const r = answer.result;
    return {
      width: r.width,
      height: r.height,
      runner: newestRunner(),
      frames: 1,
      timings: { compile_ms: 0, render_ms: round(r.build_ms), encode_ms: round(r.write_ms) },
    };
  }

  /** Posts one task and waits for its answer; an abort terminates the thread. */
  private ask(worker: Worker, task: ExportTask, signal: AbortSignal): Promise<WorkerAnswer> {
    return new Promise<WorkerAnswer>((resolve, reject) => {
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        signal.removeEventListener('abort', onAbort);
      };
      const onMessage = (m: WorkerAnswer) => (done(), resolve(m));
      const onError = (e: Error) => (done(), reject(e));
      const onExit = (code: number) => (done(), reject(new Error(`exit code ${code}`)));
      const onAbort = () => {
        done();
        void worker.terminate();
        reject(new Error('aborted'));
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      signal.addEventListener('abort', onAbort, { once: true });
      worker.postMessage(task);
    });
  }

  private release(worker: Worker): void {
    if (!this.closed && this.idle.length < (this.maxIdle ?? 1)) this.idle.push(worker);
    else this.drop(worker);
  }

  private drop(worker: Worker): void {
    this.all.delete(worker);
    this.idle = this.idle.filter((w) => w !== worker);
    void worker.terminate();
  }

  /** A new thread, resolved once it has loaded the library. */
  private spawn(): Promise<Worker> {
    const worker = workerThread(this.memoryMb ?? 2048);
    this.all.add(worker);
    return new Promise<Worker>((resolve, reject) => {
      const fail = (e: Error) => {
        this.all.delete(worker);
        reject(new JobFailure(`export worker failed to start: ${e.message}`, CODE.internal_error));
      };
      worker.once('error', fail);
      worker.once('exit', (code) => fail(new Error(`exit code ${code}`)));
      worker.once('message', () => {
        worker.removeAllListeners('error');
        worker.removeAllListeners('exit');
        // an idle thread that dies (it should not) leaves the pool instead of taking the process down
        worker.on('error', (e) => this.log.warn({ err: e }, 'idle export worker failed'));
        worker.on('exit', () => this.drop(worker));
        resolve(worker);
      });
    });
  }
}

/** The worker thread, its heap capped. */
function workerThread(memoryMb: number): Worker {
  return startWorker(import.meta.url, 'export-worker', { maxOldGenerationSizeMb: memoryMb });
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
