// A job's admission estimate and its frames evaluated off the main thread (eval-worker.ts). The estimate compiles
// the job's program in a thread, which keeps it by its key (program-cache.ts); the renderer opens a session per
// render in the idle thread that holds that program (so a job compiles once, however many chunks it renders in), then
// reads the frames in order while the thread evaluates ahead of it. A few idle threads are kept warm; a session that
// ends mid-work (abort, the job limit, a failure) terminates its thread, so a long evaluation stops with its job.
// Estimates are asked one at a time, in order; one that takes longer than ESTIMATE_TIMEOUT_MS gets none (its thread
// is stopped), so a request never waits on it for long.
import type { ResourceLimits, Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { EVAL_HEAP_LIMITS, outOfMemory, startWorker } from './worker-thread.js';
import { JobAssets } from './job-assets.js';
import { JobFailure, type RenderJob, type WorkEstimate } from './renderer-port.js';
import type { EvaluatedFrame, PlanInfo } from './prepare.js';
import { Aborted, type FrameSource } from './frame-sequence.js';
import type { EstimateInput, EvalAnswer, EvalRequest, FailureData, RemoteFrame } from './eval-protocol.js';
import { PROGRAMS_KEPT } from './program-cache.js';
import { CODE } from '../contract/error-codes.js';

/** Read ahead while fewer frames than this wait to be taken, */
const LOW_WATER = 64;
/**
 * and while their JSON is under this many characters: a frame may be 16 MiB (EVL013), and 64 of them would hold
 * a gigabyte here. With the thread's batch (at most 4 MiB past one frame) the frames waiting stay under 64 MiB.
 */
export const READ_AHEAD_BYTES = 24 << 20;

export const ESTIMATE_TIMEOUT_MS = 10_000;

/** A thread that ended for its heap limit fails its job with memory_budget; any other failure is internal. */
function threadFailure(err: Error): Error {
  if (!outOfMemory(err)) return err;
  return new JobFailure(
    "render failed: evaluating the scene needed more memory than a job's evaluation thread has " +
      `(${EVAL_HEAP_LIMITS.maxOldGenerationSizeMb} MB); make the scene's values smaller`,
    CODE.memory_budget,
  );
}

function toError(f: FailureData): Error {
  if (f.internal !== undefined) return new Error(`evaluation thread: ${f.internal}`);
  return new JobFailure(f.message, f.code, f.diagnostics);
}

export interface EvalThreadsOptions {
  log?: Logger;
  /** the threads' resourceLimits (EVAL_HEAP_LIMITS; a test gives a small one) */
  heap?: ResourceLimits;
  /** idle threads kept warm (default 2: one for the estimates, one for the next render) */
  keepIdle?: number;
}

export class EvalThreads {
  /** idle threads, the most recently used last */
  private readonly idle: Worker[] = [];
  /** the program keys each thread holds (its ProgramCache's, least recently used first) */
  private readonly holds = new Map<Worker, string[]>();
  /** the estimates asked, one at a time in order */
  private estimates: Promise<unknown> = Promise.resolve();
  /** programs compiled, over every thread (each job's estimate, and a render whose program was not in its thread) */
  compiles = 0;

  constructor(private readonly o: EvalThreadsOptions = {}) {}

  /**
   * A job's estimate, made in an idle thread that then keeps its program for the job's renders; null when it cannot
   * be made (the source does not compile, ...) or takes longer than ESTIMATE_TIMEOUT_MS.
   */
  estimate(job: EstimateInput): Promise<WorkEstimate | null> {
    const made = this.estimates.then(() => this.estimateNow(job));
    this.estimates = made;
    return made;
  }

  private async estimateNow(job: EstimateInput): Promise<WorkEstimate | null> {
    const w = this.take();
    let healthy = false;
    try {
      const a = await this.ask(w, { op: 'estimate', job: { ...job } }, undefined, ESTIMATE_TIMEOUT_MS);
      healthy = true;
      return a.op === 'estimated' ? a.estimate : null;
    } catch (err) {
      this.o.log?.warn({ err, kind: job.kind }, 'admission estimate failed or took too long; the job gets none');
      return null;
    } finally {
      this.release(w, healthy);
    }
  }

  /**
   * Prepares `job` in a worker (its program, compiled unless the thread has it, the first frame, output size, frame
   * plan, image check): its plan, and a session that evaluates its frames. A JobFailure of prepare() is thrown as it
   * is; an abort terminates the worker.
   */
  async open(job: RenderJob, signal?: AbortSignal): Promise<EvalSession> {
    // a job admission prepared goes to the thread that compiled its program (a render outside the service's queue,
    // the CLI's, was prepared by its own estimate too; without one, any thread compiles it)
    const w = this.take(job.prepared?.program);
    let answer: EvalAnswer;
    try {
      answer = await this.ask(w, { op: 'open', job }, signal);
    } catch (err) {
      this.release(w, false);
      throw err;
    }
    if (answer.op !== 'opened') {
      // a job that fails to prepare leaves the worker as good as new
      this.release(w, true);
      throw toError(answer.op === 'failed' ? answer.failure : { internal: 'unexpected answer' });
    }
    const plan: PlanInfo = { ...answer.plan, assets: new JobAssets(job.assets, job.source) };
    return new EvalSession(w, plan, (healthy) => this.release(w, healthy), this.o.log);
  }

  /** One request and its answer; an error, an exit, an abort or the time running out terminate the worker. */
  private ask(w: Worker, request: EvalRequest, signal?: AbortSignal, timeoutMs?: number): Promise<EvalAnswer> {
    return new Promise<EvalAnswer>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cleanup = () => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('error', onError);
        w.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
      };
      const onMessage = (a: EvalAnswer) => {
        cleanup();
        if (a.op !== 'frames') {
          this.compiles += a.compiled;
          this.holding(w, a.program);
        }
        resolve(a);
      };
      const onError = (err: Error) => {
        cleanup();
        void w.terminate();
        reject(threadFailure(err));
      };
      const onExit = () => onError(new Error('the evaluation thread exited'));
      const onAbort = () => onError(new Aborted());
      w.on('message', onMessage);
      w.on('error', onError);
      w.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (timeoutMs !== undefined)
        timer = setTimeout(() => onError(new Error(`took longer than ${timeoutMs / 1000} s`)), timeoutMs);
      if (signal?.aborted) return onAbort();
      w.postMessage(request);
    });
  }

  /** An idle thread, the one holding `key` if one does, else the most recently used; a new one when none is idle. */
  private take(key?: string): Worker {
    let i = key === undefined ? -1 : this.idle.findIndex((w) => this.holds.get(w)?.includes(key));
    if (i < 0) i = this.idle.length - 1;
    const w = i >= 0 ? this.idle.splice(i, 1)[0]! : this.start();
    w.ref();
    return w;
  }

  /** Mirrors the thread's ProgramCache: `key` used last, the oldest out past PROGRAMS_KEPT. */
  private holding(w: Worker, key: string): void {
    const keys = (this.holds.get(w) ?? []).filter((k) => k !== key);
    keys.push(key);
    if (keys.length > PROGRAMS_KEPT) keys.shift();
    this.holds.set(w, keys);
  }

  private start(): Worker {
    const w = startWorker(import.meta.url, 'eval-worker', this.o.heap ?? EVAL_HEAP_LIMITS);
    // an idle thread that dies is not handed to the next job
    w.on('exit', () => this.forget(w));
    return w;
  }

  private forget(w: Worker): void {
    const i = this.idle.indexOf(w);
    if (i >= 0) this.idle.splice(i, 1);
    this.holds.delete(w);
  }

  private release(w: Worker, healthy: boolean): void {
    if (healthy && this.idle.length < (this.o.keepIdle ?? 2)) {
      w.unref(); // an idle thread never keeps the process alive
      this.idle.push(w);
      return;
    }
    this.forget(w);
    void w.terminate();
  }

  async close(): Promise<void> {
    const idle = this.idle.splice(0);
    await Promise.all(idle.map((w) => (this.forget(w), w.terminate())));
  }
}

/** One job's frames. Not shared: one sequence reads it at a time (a new cursor() discards the previous one). */
export class EvalSession {
  private seq = 0;
  private closed = false;
  private cursorOpen: Cursor | null = null;
  private inFlight = false;

  constructor(
    private readonly w: Worker,
    readonly plan: PlanInfo,
    private readonly done: (healthy: boolean) => void,
    private readonly log?: Logger,
  ) {
    w.on('message', this.onMessage);
    w.on('error', this.onError);
    w.on('exit', this.onExit);
  }

  /** Frames from index `from` (inclusive) up to `to` (exclusive), evaluated ahead of the reader. */
  cursor(from: number, to: number): FrameSource {
    const first = from === 1 ? this.plan.first : null;
    const c = new Cursor(this, ++this.seq, from, to, first?.json ?? null, first?.images ?? []);
    this.cursorOpen = c;
    return c;
  }

  /** Gives the worker back (kept warm) when it is idle and healthy, else terminates it. */
  close(healthy = true): void {
    if (this.closed) return;
    this.closed = true;
    this.w.off('message', this.onMessage);
    this.w.off('error', this.onError);
    this.w.off('exit', this.onExit);
    this.done(healthy && !this.inFlight);
  }

  /** @internal */
  ask(seq: number, from: number, to: number): void {
    if (this.closed || this.inFlight) return;
    this.inFlight = true;
    this.w.postMessage({ op: 'frames', seq, from, to } satisfies EvalRequest);
  }

  private readonly onMessage = (a: EvalAnswer) => {
    this.inFlight = false;
    if (a.op !== 'frames') return;
    const c = this.cursorOpen;
    if (c && c.seq === a.seq) c.receive(a.from, a.frames, a.failure);
    else c?.wake(); // an answer for a cursor given up; the current one asks for its own
  };

  private readonly onError = (err: Error) => {
    this.log?.warn({ err }, 'evaluation thread failed');
    this.inFlight = false;
    this.cursorOpen?.fail(threadFailure(err));
  };

  private readonly onExit = () => {
    this.inFlight = false;
    this.cursorOpen?.fail(new Error('the evaluation thread exited'));
  };
}

class Cursor implements FrameSource {
  /** frames received and not yet taken, from index `base` */
  private readonly ready: EvaluatedFrame[] = [];
  /** JSON characters of each of them that is not a repeat (a repeat holds its predecessor's text), and their sum */
  private readonly sizes: number[] = [];
  private readyBytes = 0;
  private base: number;
  private next: number;
  private failure: { at: number; error: Error } | null = null;
  private waiter: (() => void) | null = null;

  constructor(
    private readonly session: EvalSession,
    readonly seq: number,
    from: number,
    private readonly to: number,
    private lastJson: string | null,
    private lastImages: readonly string[],
  ) {
    this.base = from;
    this.next = from;
  }

  async at(i: number): Promise<EvaluatedFrame> {
    for (;;) {
      if (i < this.base) throw new Error(`frame ${i} was already taken`);
      if (i < this.base + this.ready.length) {
        // frames before i are not wanted any more
        const f = this.ready[i - this.base]!;
        this.ready.splice(0, i - this.base + 1);
        for (const n of this.sizes.splice(0, i - this.base + 1)) this.readyBytes -= n;
        this.base = i + 1;
        this.readAhead();
        return f;
      }
      if (this.failure && this.failure.at <= i) throw this.failure.error;
      this.readAhead();
      await new Promise<void>((r) => (this.waiter = r));
    }
  }

  private readAhead(): void {
    if (this.failure || this.next >= this.to) return;
    if (this.ready.length >= LOW_WATER || this.readyBytes >= READ_AHEAD_BYTES) return;
    this.session.ask(this.seq, this.next, this.to);
  }

  /** @internal */
  receive(from: number, frames: RemoteFrame[], failure?: FailureData): void {
    if (from !== this.next) return this.fail(new Error(`frames from ${from} came, ${this.next} was next`));
    for (const r of frames) {
      const json = r.json ?? this.lastJson;
      if (json === null) return this.fail(new Error('a repeat with no frame before it'));
      // a repeat draws what the frame before it drew
      const images = r.json === null ? this.lastImages : r.images;
      this.ready.push({ json, timeFree: false, nodes: r.nodes, steps: r.steps, images });
      this.sizes.push(r.json?.length ?? 0);
      this.readyBytes += r.json?.length ?? 0;
      this.lastJson = json;
      this.lastImages = images;
    }
    this.next += frames.length;
    if (failure) this.failure = { at: this.next, error: toError(failure) };
    else this.readAhead();
    this.wake();
  }

  /** @internal */
  fail(error: Error): void {
    this.failure ??= { at: this.next, error };
    this.wake();
  }

  /** @internal */
  wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
