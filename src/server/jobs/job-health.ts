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
  /** true once the service stops (SIGTERM or close): no new job is admitted */
  stopping: () => boolean;
}

export class JobHealth {
  constructor(private readonly o: JobHealthOptions) {}

  /** Why a new job would be refused now (503), or null when it is welcome. */
  admission(): Refusal | null {
    if (this.o.stopping()) return shuttingDown();
    const cap = this.o.maxQueuedJobs;
    const queued = this.o.admittedNow?.();
    if (cap !== undefined && queued !== undefined && queued >= cap) return queueFull(queued, cap);
    return this.o.outputs.refusal();
  }

  /** Why no job can be stored now (the journal cannot be written, the disk is full), or null. */
  async storageRefusal(): Promise<Refusal | null> {
    if (this.o.store.writable && !(await this.o.store.writable())) return journalUnwritable();
    // the output budget as every process has filled it (admission() and health() read it next)
    await this.o.outputs.refreshCount();
    const disk = this.o.disk;
    if (disk && (await disk.short())) return diskFull(await disk.free(), disk.minFreeBytes);
    return null;
  }

  /** Why the service cannot take work now (/healthz answers 503 with it), or null. A full queue is not counted. */
  async health(): Promise<Refusal | null> {
    if (this.o.stopping()) return shuttingDown();
    if (this.o.link && !this.o.link.up()) return redisUnavailable();
    // a process that renders reports its own renderer; one that renders nothing has none started
    const fault = this.o.renderer.fault?.();
    if (fault) return rendererUnavailable(fault);
    return (await this.storageRefusal()) ?? this.o.outputs.refusal();
  }

  /**
   * Why this process cannot take work now (/readyz): health(), and each shared store (Redis, a bucket) answering
   * within a second. A bucket that does not answer is not a liveness failure (/healthz): a restart would not mend it.
   */
  async ready(): Promise<Refusal | null> {
    const down = await this.health();
    if (down) return down;
    if (this.o.link && !(await this.o.link.ping())) return redisUnavailable();
    return (await this.o.outputs.reachable()) ? null : storageUnavailable();
  }
}
