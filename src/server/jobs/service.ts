// Job lifecycle: create -> queue -> render -> ready | error, retention, and the public view of a record.
import { randomUUID, createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { JobRecord, JobStore, JobParams } from './store.js';
import { RenderQueue } from './queue.js';
import type { Renderer, RenderOutcome } from '../../render/types.js';
import { JobFailure } from '../../render/types.js';
import { KIND_EXT, OUTPUT_MIME } from '../../contract/mime.js';
import type { JobKind, JobView } from '../schemas.js';
import type { AssetStore } from '../assets.js';
import { planRecovery } from '../durability/recovery.js';
import { planEviction, type OutputFile, type OutputRef } from '../durability/disk-budget.js';
import { queueFull, shuttingDown, storageFull, type Refusal } from '../durability/admission.js';

export interface JobServiceOptions {
  store: JobStore;
  renderer: Renderer;
  assets: AssetStore;
  outputsDir: string;
  concurrency: number;
  jobTimeoutMs: number;
  retentionMs: number;
  /** jobs waiting or rendering at most (default: no cap) */
  maxQueuedJobs?: number;
  /** disk budget of the output directory in bytes (default: no cap) */
  outputMaxBytes?: number;
  log: Logger;
  now?: () => number;
}

function sha256File(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    createReadStream(path)
      .on('data', (d) => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}

function limitText(ms: number): string {
  const s = ms / 1000;
  return `render timed out after ${Number.isInteger(s) ? s : s.toFixed(1)} s (the job limit)`;
}

const INTERRUPTED = 'render interrupted: the service stopped';

/** How long a timed-out or checkpointed render may take to release its page and encoder before the next starts. */
const STOP_SETTLE_MS = 5_000;

export class JobService {
  readonly queue: RenderQueue;
  private readonly progress = new Map<string, number>();
  /** abort controllers of the jobs rendering now */
  private readonly running = new Map<string, { ctl: AbortController; done: Promise<void> }>();
  private closing = false;
  /** SIGTERM: no new job is admitted (503 shutting_down) */
  private stopping = false;
  /** set when shutdown() aborts the jobs in hand: they are checkpointed (pending again), not failed */
  private checkpointing = false;
  private sweepTimer?: NodeJS.Timeout;
  private readonly now: () => number;
  /** bytes in the output directory, kept up to date as outputs come and go (for OUTPUT_MAX_BYTES) */
  outputBytes = 0;
  /** jobs recovered at init, queued by resume() once the renderer is up */
  private recovered: string[] = [];

  constructor(private readonly o: JobServiceOptions) {
    this.queue = new RenderQueue(o.concurrency);
    this.now = o.now ?? Date.now;
  }

  async init(): Promise<void> {
    await mkdir(this.o.outputsDir, { recursive: true });
    await this.recover();
    await this.sweep();
    await this.enforceBudget();
    this.sweepTimer = setInterval(() => void this.sweep().catch((e) => this.o.log.warn({ err: e }, 'retention sweep failed')), 60_000);
    this.sweepTimer.unref();
  }

  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    // Stop taking work: waiting jobs stay pending, rendering jobs are interrupted and end in error.
    this.closing = true;
    this.queue.clear();
    for (const r of this.running.values()) r.ctl.abort(new Error('shutdown'));
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /**
   * Graceful stop (SIGTERM): no new job is admitted; waiting jobs stay pending in the store (queued again at the next
   * start); the jobs in hand get graceMs to finish, then they are aborted and checkpointed: pending again, as if they
   * had never started (a shutdown is not counted as an interruption).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.stopping = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const dropped = this.queue.clear();
    if (dropped) this.o.log.info({ jobs: dropped, event: 'queue_checkpointed' }, 'waiting jobs stay pending for the next start');
    const inHand = [...this.running.values()].map((r) => r.done);
    if (!inHand.length) return;
    if (await settle(Promise.allSettled(inHand), graceMs)) return;
    this.checkpointing = true;
    for (const [id, r] of this.running) {
      this.o.log.warn({ job_id: id, event: 'job_checkpointed' }, 'shutdown grace over: the job in hand is checkpointed for the next start');
      r.ctl.abort(new Error('shutdown'));
    }
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  /** Why a new job would be refused now (503), or null when it is welcome. */
  admission(): Refusal | null {
    if (this.stopping || this.closing) return shuttingDown();
    const cap = this.o.maxQueuedJobs;
    if (cap !== undefined && this.queue.size >= cap) return queueFull(this.queue.size, cap);
    const budget = this.o.outputMaxBytes;
    if (budget !== undefined && this.outputBytes >= budget) return storageFull(this.outputBytes, budget);
    return null;
  }

  /** Creates a pending job and queues it; the render runs in the background. */
  async create(kind: JobKind, source: string, params: JobParams, assets: Record<string, string>): Promise<JobRecord> {
    const rec: JobRecord = { job_id: randomUUID(), kind, status: 'pending', created_at: this.now(), source, params, assets };
    await this.o.store.put(rec);
    this.o.log.info({ job_id: rec.job_id, kind, status: 'pending', event: 'job_created' }, 'job pending');
    this.enqueue(rec.job_id);
    return rec;
  }

  /** Queues the jobs recovered at init, in their order (called once the renderer has started). */
  resume(): void {
    const ids = this.recovered;
    this.recovered = [];
    if (this.stopping || this.closing) return;
    for (const id of ids) this.enqueue(id);
  }

  private enqueue(id: string): void {
    void this.queue.add(id, () => this.run(id)).catch((err) => this.o.log.error({ err, job_id: id }, 'job runner crashed'));
  }

  /**
   * At start, from the stored records (durability/recovery.ts): pending jobs are queued again in created_at order
   * (by resume()); the one that was rendering when the service stopped is queued once more, or ends in error if it
   * already was.
   */
  private async recover(): Promise<void> {
    const plan = planRecovery(await this.o.store.list(), this.now());
    for (const rec of plan.updates) {
      await this.o.store.put(rec);
      // the cut render left at most a partial file: it goes (a requeued job writes it again)
      const out = join(this.o.outputsDir, `${rec.job_id}.${KIND_EXT[rec.kind]}`);
      await rm(`${out}.tmp`, { force: true });
      await rm(out, { force: true });
    }
    for (const id of plan.failed) this.o.log.warn({ job_id: id, status: 'error', event: 'job_interrupted' }, 'job interrupted twice: ended in error');
    this.recovered = plan.requeue;
    if (plan.requeue.length || plan.failed.length) this.o.log.info({ requeued: plan.requeue.length, failed: plan.failed.length, event: 'jobs_recovered' }, 'jobs recovered from the journal');
  }

  /** Renders outside the store (GET /test): same queue, same renderer, output returned to the caller. */
  async renderDirect(kind: JobKind, source: string, params: JobParams, outPath: string): Promise<RenderOutcome> {
    const id = randomUUID();
    return this.queue.add(id, async () => {
      const ctl = new AbortController();
      const timer = setTimeout(() => ctl.abort(), this.o.jobTimeoutMs);
      try {
        return await this.o.renderer.render({ id, kind, source, params, assets: {}, outPath }, { signal: ctl.signal });
      } finally {
        clearTimeout(timer);
      }
    });
  }

  private run(id: string): Promise<void> {
    if (this.closing) return Promise.resolve();
    const ctl = new AbortController();
    const done = this.runJob(id, ctl).finally(() => this.running.delete(id));
    this.running.set(id, { ctl, done });
    return done;
  }

  private async runJob(id: string, ctl: AbortController): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status !== 'pending') return;
    const started = this.now();
    rec.started_at = started;
    await this.o.store.put(rec);
    const queueWait = started - rec.created_at;
    this.o.log.info({ job_id: id, kind: rec.kind, status: 'rendering', event: 'job_started', queue_wait_ms: queueWait }, 'job started');

    const ext = KIND_EXT[rec.kind];
    const filename = `${id}.${ext}`;
    const outPath = join(this.o.outputsDir, filename);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error('timeout'));
    }, this.o.jobTimeoutMs);
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(new JobFailure(timedOut ? limitText(this.o.jobTimeoutMs) : INTERRUPTED));
      if (ctl.signal.aborted) fail();
      else ctl.signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => {});
    let rendering: Promise<unknown> | undefined;
    try {
      const assetFiles: Record<string, string> = {};
      for (const [path, key] of Object.entries(rec.assets)) assetFiles[path] = this.o.assets.pathOf(key);
      this.progress.set(id, 0);
      const outcome = await Promise.race([
        (rendering = this.o.renderer.render(
          { id, kind: rec.kind, source: rec.source, params: rec.params, assets: assetFiles, outPath },
          { signal: ctl.signal, onProgress: (p) => this.progress.set(id, p) },
        )),
        aborted,
      ]);
      const st = await stat(outPath);
      const sha256 = await sha256File(outPath);
      const done = this.now();
      const fresh = (await this.o.store.get(id)) ?? rec;
      Object.assign(fresh, {
        status: 'ready',
        completed_at: done,
        progress: 1,
        runner: outcome.runner,
        output: { filename, mime: OUTPUT_MIME[ext], bytes: st.size, sha256, width: outcome.width, height: outcome.height, written_at: done },
        timings: { queue_wait_ms: queueWait, ...outcome.timings, total_ms: done - rec.created_at },
      } satisfies Partial<JobRecord>);
      // over the disk budget: older outputs go before this one is announced (it is still pending: never evicted)
      this.outputBytes += st.size;
      if (this.o.outputMaxBytes !== undefined && this.outputBytes > this.o.outputMaxBytes) await this.enforceBudget().catch((e) => this.o.log.warn({ err: e }, 'disk budget enforcement failed'));
      await this.o.store.put(fresh);
      this.o.log.info(
        { job_id: id, kind: rec.kind, status: 'ready', event: 'job_ready', queue_wait_ms: queueWait, ...outcome.timings, total_ms: done - rec.created_at, width: outcome.width, height: outcome.height, frames: outcome.frames, bytes: st.size },
        'job ready',
      );
    } catch (err) {
      // a stopped render (time limit, checkpoint) releases its page and kills its ffmpeg before the next job starts
      if ((timedOut || this.checkpointing) && rendering) await settle(rendering, STOP_SETTLE_MS);
      const done = this.now();
      const fresh = (await this.o.store.get(id)) ?? rec;
      if (this.checkpointing && !timedOut) {
        delete fresh.started_at;
        delete fresh.progress;
        await this.o.store.put(fresh).catch((e) => this.o.log.error({ err: e, job_id: id }, 'checkpoint failed'));
        await rm(outPath, { force: true });
        await rm(`${outPath}.tmp`, { force: true });
        return;
      }
      fresh.status = 'error';
      fresh.completed_at = done;
      if (timedOut) {
        fresh.message = limitText(this.o.jobTimeoutMs);
        fresh.code = null;
      } else if (ctl.signal.aborted) {
        fresh.message = INTERRUPTED;
        fresh.code = null;
      } else if (err instanceof JobFailure) {
        fresh.message = err.message;
        fresh.code = err.code;
        if (err.diagnostics) fresh.diagnostics = err.diagnostics;
      } else {
        fresh.message = 'render failed: internal error';
        fresh.code = null;
      }
      fresh.timings = { queue_wait_ms: queueWait, total_ms: done - rec.created_at };
      await this.o.store.put(fresh);
      await rm(outPath, { force: true });
      const level = err instanceof JobFailure && !timedOut ? 'info' : 'warn';
      this.o.log[level](
        { job_id: id, kind: rec.kind, status: 'error', event: 'job_error', code: fresh.code, message: fresh.message, queue_wait_ms: queueWait, total_ms: done - rec.created_at, ...(err instanceof JobFailure ? {} : { err }) },
        'job error',
      );
    } finally {
      clearTimeout(timer);
      this.progress.delete(id);
    }
  }

  /**
   * Recounts the output directory and, over OUTPUT_MAX_BYTES, deletes the oldest outputs that no job younger than
   * 24 hours holds (durability/disk-budget.ts); their jobs expire with them.
   */
  async enforceBudget(): Promise<void> {
    const files: OutputFile[] = [];
    for (const name of await readdir(this.o.outputsDir).catch(() => [] as string[])) {
      const st = await stat(join(this.o.outputsDir, name)).catch(() => undefined);
      if (st?.isFile()) files.push({ name, bytes: st.size, mtimeMs: st.mtimeMs });
    }
    const budget = this.o.outputMaxBytes;
    const total = files.reduce((n, f) => n + f.bytes, 0);
    if (budget === undefined || total <= budget) {
      this.outputBytes = total;
      return;
    }
    const refs: OutputRef[] = [];
    for (const rec of await this.o.store.list()) {
      if (rec.status === 'ready' && rec.output) refs.push({ filename: rec.output.filename, job_id: rec.job_id, at: rec.output.written_at });
      else if (rec.status === 'pending') refs.push({ filename: `${rec.job_id}.${KIND_EXT[rec.kind]}`, job_id: rec.job_id, at: rec.created_at, rendering: true });
    }
    const plan = planEviction(files, refs, budget, this.now());
    for (const name of plan.evict) await rm(join(this.o.outputsDir, name), { force: true });
    for (const id of plan.jobs) {
      await this.o.store.delete(id);
      this.o.log.info({ job_id: id, event: 'job_evicted' }, 'output evicted by the disk budget');
    }
    this.outputBytes = plan.after;
    if (plan.after > budget) this.o.log.warn({ bytes: plan.after, budget, event: 'storage_full' }, 'outputs over budget and all held by jobs younger than 24 h: new jobs are refused');
  }

  /** The public view of a record (the contract's Job shapes plus the added fields). */
  view(rec: JobRecord): JobView {
    const base = { job_id: rec.job_id, kind: rec.kind };
    if (rec.status === 'pending') {
      const v: JobView = { ...base, status: 'pending', created_at: rec.created_at };
      const pos = this.queue.position(rec.job_id);
      if (pos !== undefined) v.queue_position = pos;
      v.progress = this.progress.get(rec.job_id) ?? 0;
      return v;
    }
    if (rec.status === 'ready' && rec.output) {
      return {
        ...base,
        status: 'ready',
        created_at: rec.created_at,
        completed_at: rec.completed_at,
        url: `/v1/outputs/${rec.output.filename}`,
        mime: rec.output.mime as 'image/png' | 'video/mp4',
        width: rec.output.width,
        height: rec.output.height,
      };
    }
    const v: JobView = { ...base, status: 'error', created_at: rec.created_at, completed_at: rec.completed_at, message: rec.message ?? 'render failed', code: rec.code ?? null };
    if (rec.diagnostics) v.diagnostics = rec.diagnostics;
    return v;
  }

  get(id: string) {
    return this.o.store.get(id);
  }

  /** The record owning an output filename, only when it is ready and the name is exactly its output. */
  async outputRecord(filename: string): Promise<JobRecord | undefined> {
    const dot = filename.indexOf('.');
    if (dot < 0) return undefined;
    const rec = await this.o.store.get(filename.slice(0, dot));
    if (!rec || rec.status !== 'ready' || rec.output?.filename !== filename) return undefined;
    return rec;
  }

  /** Deletes outputs and records past retention, stray output files, and expired assets. */
  async sweep(): Promise<void> {
    const now = this.now();
    const keep = this.o.retentionMs;
    const known = new Set<string>();
    for (const rec of await this.o.store.list()) {
      if (rec.status === 'ready' && rec.output) {
        if (rec.output.written_at + keep <= now) {
          await rm(join(this.o.outputsDir, rec.output.filename), { force: true });
          this.outputBytes = Math.max(0, this.outputBytes - rec.output.bytes);
          await this.o.store.delete(rec.job_id);
          this.o.log.info({ job_id: rec.job_id, event: 'job_expired' }, 'job expired');
        } else known.add(rec.output.filename);
      } else if (rec.status === 'error' && (rec.completed_at ?? rec.created_at) + keep <= now) {
        await this.o.store.delete(rec.job_id);
        this.o.log.info({ job_id: rec.job_id, event: 'job_expired' }, 'job expired');
      } else if (rec.status === 'pending') {
        known.add(`${rec.job_id}.${KIND_EXT[rec.kind]}`);
      }
    }
    for (const name of await readdir(this.o.outputsDir).catch(() => [] as string[])) {
      if (known.has(name)) continue;
      const p = join(this.o.outputsDir, name);
      const st = await stat(p).catch(() => undefined);
      if (st && st.mtimeMs + keep <= now) await rm(p, { force: true, recursive: true });
    }
    await this.o.assets.sweep(now, keep);
  }
}


/** Waits for p to settle, at most ms; true when it settled in time. */
async function settle(p: Promise<unknown>, ms: number): Promise<boolean> {
  let t: NodeJS.Timeout | undefined;
  const ok = await Promise.race([p.then(() => true, () => true), new Promise<boolean>((r) => (t = setTimeout(() => r(false), ms)))]);
  clearTimeout(t);
  return ok;
}
