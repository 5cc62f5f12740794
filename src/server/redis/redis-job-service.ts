// The job lifecycle as an API process sees it with REDIS_URL: records in Redis (RedisJobStore), work in the BullMQ
// queue (WorkQueue), rendering in the workers (render-worker.ts). Nothing here is held only in this process, so any
// number of API processes answer for any job. What is live (progress, queue position) is read from Redis when a
// record is read, and kept for view() (which the routes call right after get()).
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { QueueEvents } from 'bullmq';
import type { Redis } from 'ioredis';
import type { JobRecord, JobParams } from '../jobs/store.js';
import type { JobEvents, JobExtras, JobLoad, CancelResult } from '../jobs/job-service.js';
import { newRecord } from '../jobs/job-service.js';
import { CANCELLED } from '../jobs/job-failure.js';
import { CODE } from '../../contract/error-codes.js';
import { jobView, type LiveJobState } from '../jobs/job-view.js';
import type { Renderer, RenderOutcome } from '../../render/renderer-port.js';
import type { JobKind, JobView } from '../http/schemas/jobs.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import type { DiskSpace } from '../storage/disk-space.js';
import {
  diskFull,
  queueFull,
  Refused,
  redisUnavailable,
  rendererUnavailable,
  shuttingDown,
  type Refusal,
} from '../durability/admission.js';
import type { Jobs } from '../jobs/jobs-api.js';
import { admitWork, type WorkAdmission } from '../jobs/work-admission.js';
import type { RedisJobStore } from './redis-store.js';
import { QUEUE_NAME, type WorkQueue } from './work-queue.js';
import { endJob } from './job-end.js';
import { deadline } from '../../contract/deadline.js';
import type { RenderCache } from '../jobs/render-cache.js';

export interface RedisJobServiceOptions {
  store: RedisJobStore;
  work: WorkQueue;
  /** a blocking connection for the queue's events (QueueEvents reads a stream) */
  eventsConnection: Redis;
  renderer: Renderer;
  assets: AssetStore;
  outputs: OutputStore;
  jobTimeoutMs: number;
  maxQueuedJobs?: number;
  disk?: DiskSpace;
  /** local directory for downloaded inputs (the estimate reads the images' sizes) */
  scratchDir: string;
  /** the render cache (shared through the storage with every process) */
  cache?: RenderCache;
  log: Logger;
  now: () => number;
}

/** A pending record whose queue job is gone this long after its creation was lost (Redis lost its data). */
const LOST_AFTER_MS = 10_000;

export class RedisJobService implements Jobs {
  readonly events = new EventEmitter<JobEvents>();
  private readonly live = new Map<string, LiveJobState>();
  private readonly queueEvents: QueueEvents;
  private stopping = false;

  constructor(private readonly o: RedisJobServiceOptions) {
    this.events.setMaxListeners(0);
    // what any worker does reaches every API's event streams: each event makes the streams read the record again
    this.queueEvents = new QueueEvents(QUEUE_NAME, { connection: o.eventsConnection });
    const changed = ({ jobId }: { jobId: string }) => {
      this.events.emit('changed', jobId.replace(/-c\d+$/, ''));
      this.events.emit('queue');
    };
    for (const e of ['progress', 'completed', 'failed', 'active', 'waiting'] as const) this.queueEvents.on(e, changed);
    this.queueEvents.on('error', (err) => o.log.warn({ err }, 'queue events: redis error'));
  }

  async init(): Promise<void> {}

  resume(): void {}

  async close(): Promise<void> {
    this.stopping = true;
    await this.queueEvents.close();
  }

  async shutdown(): Promise<void> {
    // the workers hold the jobs: an API process has nothing in hand
    this.stopping = true;
  }

  /** health(), and Redis answering a PING within a second (its commands wait for a reconnect otherwise). */
  async ready(): Promise<Refusal | null> {
    const down = await this.health();
    if (down) return down;
    let t: NodeJS.Timeout | undefined;
    const answered = await Promise.race([
      this.o.work.connection.ping().then(
        () => true,
        () => false,
      ),
      new Promise<boolean>((r) => (t = setTimeout(() => r(false), 1_000))),
    ]);
    clearTimeout(t);
    return answered ? null : redisUnavailable();
  }

  /** BullMQ's own Prometheus export of the shared queue (bullmq_job_count by state), for GET /metrics. */
  queueMetrics(): Promise<string> {
    return this.o.work.queue.exportPrometheusMetrics();
  }

  /** The shared queue's entries waiting, and those in a worker's hands (each chunk of a video is one). */
  async load(): Promise<JobLoad> {
    const c = await this.o.work.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0), running: c.active ?? 0 };
  }

  admission(): Refusal | null {
    if (this.stopping) return shuttingDown();
    // MAX_QUEUED_JOBS is checked in create(), in Redis, across every API process
    return this.o.outputs.refusal();
  }

  async storageRefusal(): Promise<Refusal | null> {
    // the output budget as every process has filled it (admission() and health() read it next)
    await this.o.outputs.refreshCount();
    const disk = this.o.disk;
    if (disk && (await disk.short())) return diskFull(await disk.free(), disk.minFreeBytes);
    return null;
  }

  async health(): Promise<Refusal | null> {
    if (this.stopping) return shuttingDown();
    if (!this.o.store.reachable) return redisUnavailable();
    // a process that renders beside its API reports its own renderer; workers pause themselves (render-worker.ts)
    const fault = this.o.renderer.fault?.();
    if (fault) return rendererUnavailable(fault);
    return (await this.storageRefusal()) ?? this.o.outputs.refusal();
  }

  /** The same admission by estimated work as the embedded service (work-admission.ts). */
  estimate(kind: JobKind, source: string, params: JobParams, assets: Record<string, string>): Promise<WorkAdmission> {
    return admitWork(this.o, kind, source, params, assets);
  }

  async create(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    extras: JobExtras = {},
    work: WorkAdmission = {},
  ): Promise<JobRecord> {
    // admission's frame count decides whether a video is cut in chunks, its estimate the job's place in the queue:
    // the source was compiled once, for admission
    const rec = newRecord(kind, source, params, assets, extras, work, this.o.now());
    // an identical job's output still kept: ready at once, nothing queued (any worker may have drawn it)
    if (await this.o.cache?.tryReuse(rec, extras.cache !== false)) {
      await this.o.store.put(rec);
      this.o.log.info(
        { job_id: rec.job_id, kind, status: 'ready', event: 'job_cached', total_ms: rec.timings?.total_ms },
        'job ready from the render cache',
      );
      this.events.emit('changed', rec.job_id);
      this.events.emit('ended', rec);
      return rec;
    }
    // MAX_QUEUED_JOBS across every API process: admitted in Redis in one step (a count read every second let two
    // APIs with a cap of 200 accept 400)
    const cap = this.o.maxQueuedJobs;
    if (cap !== undefined && !(await this.o.store.admit(rec.job_id, cap)))
      throw new Refused(queueFull(await this.o.store.admitted(), cap));
    try {
      await this.o.store.put(rec);
      await this.o.store.joinLine(rec.job_id, rec.created_at + (rec.estimate_s ?? 0) * 1000);
      await this.o.work.add(rec);
    } catch (err) {
      await this.o.store.unadmit(rec.job_id).catch(() => {});
      throw err;
    }
    this.o.log.info({ job_id: rec.job_id, kind, status: 'pending', event: 'job_created' }, 'job pending');
    this.events.emit('created', rec);
    this.events.emit('queue');
    return rec;
  }

  async cancel(id: string): Promise<CancelResult> {
    const rec = await this.o.store.get(id);
    if (!rec) return { ok: false, reason: 'not_found' };
    if (rec.status !== 'pending') return { ok: false, reason: 'ended', rec };
    const ended = await endJob(this.o.store, id, { message: CANCELLED, code: CODE.cancelled }, this.o.now);
    if (!ended) return { ok: false, reason: 'ended', rec: (await this.o.store.get(id)) ?? rec };
    // waiting queue jobs go; one a worker holds sees the record ended at its next progress and stops
    await this.o.work.queue.remove(id, { removeChildren: true }).catch(() => 0);
    this.events.emit('changed', id);
    this.events.emit('ended', ended);
    return { ok: true, rec: ended };
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.status !== 'pending') {
      this.live.delete(id);
      return rec;
    }
    const settled = await this.reconcile(rec);
    if (settled) return settled;
    this.live.set(id, await this.liveState(rec));
    return rec;
  }

  view(rec: JobRecord): JobView {
    return jobView(rec, rec.status === 'pending' ? (this.live.get(rec.job_id) ?? {}) : {});
  }

  /**
   * A pending record whose queue job failed for good (stalled too often, a chunk failed) or vanished (Redis lost its
   * data) is ended here, so no job stays pending for ever.
   */
  private async reconcile(rec: JobRecord): Promise<JobRecord | undefined> {
    const ended = await this.endIfLost(rec);
    // this process ended it: its webhook goes from here
    if (ended) this.events.emit('ended', ended);
    return ended;
  }

  private async endIfLost(rec: JobRecord): Promise<JobRecord | undefined> {
    const state = await this.o.work.queue.getJobState(rec.job_id);
    if (state === 'failed') {
      const job = await this.o.work.queue.getJob(rec.job_id);
      const reason = job?.failedReason ?? 'the render failed';
      return endJob(this.o.store, rec.job_id, { message: `render failed: ${reason}`, code: null }, this.o.now);
    }
    if (state === 'unknown' && this.o.now() - rec.created_at > LOST_AFTER_MS)
      return endJob(
        this.o.store,
        rec.job_id,
        { message: 'render failed: the queue lost the job (Redis restarted without its data?)', code: null },
        this.o.now,
      );
    return undefined;
  }

  /** Progress and place in line from a constant number of Redis calls, however many jobs wait. */
  private async liveState(rec: JobRecord): Promise<LiveJobState> {
    const id = rec.job_id;
    const [parts, place] = await Promise.all([this.o.store.progressOf(id), this.o.store.placeInLine(id)]);
    let progress = parts.whole ?? 0;
    if (rec.frames && parts.whole === undefined) {
      const done = Object.values(parts).reduce((a, b) => a + b, 0);
      progress = Math.min(1, done / rec.frames);
    }
    // out of the line: a worker has it (or is taking it now)
    return { progress, queuePosition: place ?? 0 };
  }

  renderDirect(kind: JobKind, source: string, params: JobParams, outPath: string): Promise<RenderOutcome> {
    // GET /test: drawn here, outside the queue (an API with RENDER_CONCURRENCY=0 has no browser and fails it)
    const ctl = new AbortController();
    const limit = deadline(ctl, this.o.jobTimeoutMs);
    return this.o.renderer
      .render({ id: randomUUID(), kind, source, params, assets: {}, outPath }, { signal: ctl.signal })
      .finally(() => limit.clear());
  }
}
