// Why this process cannot take a job or work now, each reason a refusal with its registered code: a POST's admission
// (shutting down, the queue full, the output budget), storage (the journal cannot be written, the disk is short),
// liveness (GET /healthz: Redis down, the renderer broken) and readiness (GET /readyz: Redis and the bucket answering
// within a second). Apart from the lifecycle because it only reads the state of the queue, the stores, the disk and
// the renderer, and changes none of it.
import type { Renderer } from '../../render/renderer-port.js';
import type { OutputStore } from '../storage/output-store.js';
import type { DiskSpace } from '../storage/disk-space.js';
import type { LifecycleStore } from './store/port.js';
import type { JobQueue } from './queue/port.js';
import {
  diskFull,
  journalUnwritable,
  queueFull,
  redisUnavailable,
  rendererUnavailable,
  shuttingDown,
  storageUnavailable,
  type Refusal,
} from '../../contract/refusals.js';

/** A shared store's link (Redis): whether it is up now, and whether it answers within a second. */
export interface StoreLink {
  up(): boolean;
  ping(): Promise<boolean>;
}

export interface JobHealthOptions {
  store: LifecycleStore;
  queue: JobQueue;
  renderer: Renderer;
  outputs: OutputStore;
  /** jobs waiting or rendering at most (default: no cap) */
  maxQueuedJobs?: number;
  /** free space on DATA_DIR's disk (default: not watched) */
  disk?: DiskSpace;
  /** with REDIS_URL: the link health and readiness look at */
  link?: StoreLink;
  /** the local queue's admitted count, read without asking (BullMQ: none; its cap is counted at admit) */
  admittedNow?: () => number;
  /** the journal: whether a change can be written now (one that failed for space tries again first) */
  storeWritable?: () => Promise<boolean>;
  /** a bucket (STORAGE_URL s3://): whether it answers within a second; a directory has no such check */
  storageAnswers?: () => Promise<boolean>;
  /** true once the service stops (SIGTERM or close): no new job is admitted */
  stopping: () => boolean;
}

export class JobHealth {
  private readonly renderer: Renderer;
  private readonly outputs: OutputStore;
  private readonly maxQueuedJobs?: number;
  private readonly disk?: DiskSpace;
  private readonly link?: StoreLink;
  private readonly admittedNow?: () => number;
  private readonly storeWritable?: () => Promise<boolean>;
  private readonly storageAnswers?: () => Promise<boolean>;
  private readonly stopping: () => boolean;

  constructor({
    renderer,
    outputs,
    maxQueuedJobs,
    disk,
    link,
    admittedNow,
    storeWritable,
    storageAnswers,
    stopping,
  }: JobHealthOptions) {
    this.renderer = renderer;
    this.outputs = outputs;
    this.maxQueuedJobs = maxQueuedJobs;
    this.disk = disk;
    this.link = link;
    this.admittedNow = admittedNow;
    this.storeWritable = storeWritable;
    this.storageAnswers = storageAnswers;
    this.stopping = stopping;
  }

  /** Why a new job would be refused now (503), or null when it is welcome. */
  admission(): Refusal | null {
    if (this.stopping()) return shuttingDown();
    const cap = this.maxQueuedJobs;
    const queued = this.admittedNow?.();
    if (cap !== undefined && queued !== undefined && queued >= cap) return queueFull(queued, cap);
    return this.outputs.refusal();
  }

  /** Why no job can be stored now (the journal cannot be written, the disk is full), or null. */
  async storageRefusal(): Promise<Refusal | null> {
    if (this.storeWritable && !(await this.storeWritable())) return journalUnwritable();
    // the output budget as every process has filled it (admission() and health() read it next)
    await this.outputs.refreshCount();
    const disk = this.disk;
    if (disk && (await disk.short())) return diskFull(await disk.free(), disk.minFreeBytes);
    return null;
  }

  /** Why the service cannot take work now (/healthz answers 503 with it), or null. A full queue is not counted. */
  async health(): Promise<Refusal | null> {
    if (this.stopping()) return shuttingDown();
    if (this.link && !this.link.up()) return redisUnavailable();
    // a process that renders reports its own renderer; one that renders nothing has none started
    const fault = this.renderer.fault?.();
    if (fault) return rendererUnavailable(fault);
    return (await this.storageRefusal()) ?? this.outputs.refusal();
  }

  /**
   * Why this process cannot take work now (/readyz): health(), and each shared store (Redis, a bucket) answering
   * within a second. A bucket that does not answer is not a liveness failure (/healthz): a restart would not mend it.
   */
  async ready(): Promise<Refusal | null> {
    const down = await this.health();
    if (down) return down;
    if (this.link && !(await this.link.ping())) return redisUnavailable();
    return !this.storageAnswers || (await this.storageAnswers()) ? null : storageUnavailable();
  }
}
