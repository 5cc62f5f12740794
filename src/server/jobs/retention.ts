// Retention (service.md "Jobs"): an output and the record pointing to it go RETENTION_MS (24 h) after the output
// was written, an error record RETENTION_MS after it ended, uploaded assets RETENTION_MS after their upload. Expiry is
// computed from stored times, so what ran out while the service was down is gone at the first sweep after a start.
import type { Logger } from 'pino';
import type { LifecycleStore } from './store/port.js';
import { JobRecords } from './job-records.js';
import type { AssetStore } from '../storage/asset-store.js';
import { OutputStore } from '../storage/output-store.js';
import type { RenderCache } from './render-cache.js';

export interface RetentionOptions {
  store: LifecycleStore;
  outputs: OutputStore;
  assets: AssetStore;
  /** the render cache, whose entries go with the outputs they name */
  cache?: RenderCache;
  retentionMs: number;
  /**
   * Redis: pending records expire on their own, so those of live jobs are kept alive every `everyMs`
   * (RedisJobStore.keepPending); the journal's never expire
   */
  keepPending?: { everyMs: number; run(): Promise<void> };
  log: Logger;
  now: () => number;
}

/** How often the sweep runs: expiry is due to the minute, not the millisecond. */
const SWEEP_EVERY_MS = 60_000;

export class Retention {
  private timer?: NodeJS.Timeout;
  private keeper?: NodeJS.Timeout;
  private readonly records: JobRecords;
  private readonly outputs: OutputStore;
  private readonly assets: AssetStore;
  private readonly cache?: RenderCache;
  private readonly retentionMs: number;
  private readonly keepPending?: { everyMs: number; run(): Promise<void> };
  private readonly log: Logger;
  private readonly now: () => number;

  constructor({ store, outputs, assets, cache, retentionMs, keepPending, log, now }: RetentionOptions) {
    this.outputs = outputs;
    this.assets = assets;
    this.cache = cache;
    this.retentionMs = retentionMs;
    this.keepPending = keepPending;
    this.log = log;
    this.now = now;
    this.records = new JobRecords(store, now);
  }

  /** Sweeps every minute, and keeps pending records alive in a store that expires them, until stop(). */
  start(): void {
    this.timer = setInterval(
      () => void this.sweep().catch((e) => this.log.warn({ err: e }, 'retention sweep failed')),
      SWEEP_EVERY_MS,
    );
    this.timer.unref();
    const keeping = this.keepPending;
    if (keeping) {
      const keep = () => void keeping.run().catch((e) => this.log.warn({ err: e }, 'keeping pending failed'));
      keep();
      this.keeper = setInterval(keep, keeping.everyMs);
      this.keeper.unref();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    if (this.keeper) clearInterval(this.keeper);
  }

  /** Deletes outputs and records past retention, stray output files, and expired assets. */
  async sweep(): Promise<void> {
    const now = this.now();
    const keep = this.retentionMs;
    // output names still held by a job: a ready job's file, or the file a pending job is writing
    const held = new Set<string>();
    for (const rec of await this.records.list()) {
      if (rec.status === 'ready' && rec.output) {
        if (rec.output.written_at + keep <= now) {
          await this.outputs.remove(rec.output);
          await this.expire(rec.job_id);
        } else held.add(rec.output.filename);
      } else if (rec.status === 'error' && (rec.completed_at ?? rec.created_at) + keep <= now) {
        await this.expire(rec.job_id);
      } else if (rec.status === 'pending') {
        held.add(OutputStore.nameOf(rec.job_id, rec.kind, rec.params));
      }
    }
    await this.outputs.removeStrays(held, now - keep);
    await this.assets.sweep(now, keep);
    await this.cache?.sweep();
  }

  private async expire(id: string): Promise<void> {
    await this.records.remove(id);
    this.log.info({ job_id: id, event: 'job_expired' }, 'job expired');
  }
}
