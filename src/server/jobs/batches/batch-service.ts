// Batches (POST /v1/batches and the routes under /v1/batches/{id}): a batch is a record that lists its rows' jobs
// (batch-store.ts); everything a row does (its queue place, its render, its output, its end) is its job's, run by the
// job service like any other. This owns what is the batch's own: its admission under an Idempotency-Key
// (submit-batch.ts does the checks and makes the jobs), its view read from its rows' records, its cancel (each row
// still pending), its end (the moment every row has ended: told once to listeners, the events stream and the
// webhook) and its expiry with the job records (RETENTION_MS).
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { CODE } from '../../../contract/error-codes.js';
import type { JobService } from '../job-service.js';
import type { JobRecord } from '../store/port.js';
import type { SubmitDoor } from '../submit.js';
import type { OutputStore } from '../../storage/output-store.js';
import type { IdempotencyKeys } from '../idempotency.js';
import type { BatchView } from '../../../contract/batch-view.js';
import { admitBatch, type BatchSubmission } from './submit-batch.js';
import type { BatchRecord, BatchStore } from './batch-store.js';
import type { BatchWebhooks } from './batch-webhook.js';

export interface BatchServiceOptions {
  jobs: JobService;
  store: BatchStore;
  /** where the rows' outputs are read from (the archive) */
  outputs: OutputStore;
  /** BATCH_MAX_ROWS */
  maxRows: number;
  /** how long records live (RETENTION_MS): a batch goes with its rows' records */
  retentionMs: number;
  /** the batch webhooks (batch-webhook.ts's); absent: none are delivered from this process (a render worker) */
  webhooks?: BatchWebhooks;
  log: Logger;
  now: () => number;
}

/** How soon after a followed row's change its batch is looked at (with REDIS_URL its rows end in the workers). */
const END_CHECK_MS = 250;

/** What the batch service tells listeners: `ended` (record, view) once per batch, in the process that saw it end. */
export interface BatchEvents {
  ended: [rec: BatchRecord, view: BatchView];
}

export class BatchService {
  readonly events = new EventEmitter<BatchEvents>();
  /** the batch each followed row belongs to, for the batches of this process that have not ended */
  private readonly batchOf = new Map<string, string>();
  /** each batch's end check in progress: checks of one batch run one after another, so it ends once */
  private readonly checking = new Map<string, Promise<void>>();
  /** the end checks a row's change asked for, one per batch at a time */
  private readonly soon = new Map<string, NodeJS.Timeout>();

  constructor(private readonly o: BatchServiceOptions) {
    this.events.setMaxListeners(0);
    o.jobs.events.on('ended', (rec) => {
      const id = rec.batch_id ?? this.batchOf.get(rec.job_id);
      if (id !== undefined) void this.checkEnd(id).catch((err) => o.log.error({ err, batch_id: id }, 'batch end'));
    });
    // with REDIS_URL a row ends in a worker: this process hears of it as a change (the queue's events), and looks
    // at the batch shortly after (once per batch however many rows moved meanwhile)
    o.jobs.events.on('changed', (jobId) => {
      const id = this.batchOf.get(jobId);
      if (id === undefined || this.soon.has(id)) return;
      const t = setTimeout(() => {
        this.soon.delete(id);
        void this.checkEnd(id).catch((err) => o.log.error({ err, batch_id: id }, 'batch end'));
      }, END_CHECK_MS);
      t.unref();
      this.soon.set(id, t);
    });
    this.events.on('ended', (rec) => o.webhooks?.ended(rec));
  }

  get jobs(): JobService {
    return this.o.jobs;
  }

  get outputs(): OutputStore {
    return this.o.outputs;
  }

  /**
   * At start: batches past the retention go; the rows of those still open are followed again (and one whose rows all
   * ended while the service was down is ended now). Idempotency keys of the kept batches answer again.
   */
  async init(
    idempotency?: IdempotencyKeys & { remember?: (key: string, hash: string, at: number, id: string) => void },
  ) {
    for (const rec of await this.o.store.list()) {
      if (this.expired(rec)) {
        await this.o.store.delete(rec.batch_id);
        continue;
      }
      if (rec.idempotency)
        idempotency?.remember?.(`batch:${rec.idempotency.key}`, rec.idempotency.hash, rec.created_at, rec.batch_id);
      if (rec.ended_at === undefined) {
        for (const r of rec.rows) this.batchOf.set(r.job_id, rec.batch_id);
        await this.checkEnd(rec.batch_id);
      } else this.o.webhooks?.ended(rec);
    }
  }

  /** Admits a batch whole (or throws the refusal), or answers the batch an earlier request with its key made. */
  async submit(s: BatchSubmission, door: SubmitDoor): Promise<BatchRecord> {
    const create = async (): Promise<string> => {
      const rec = await admitBatch(this.o.jobs, door, s, this.o.maxRows, this.o.now());
      for (const r of rec.rows) this.batchOf.set(r.job_id, rec.batch_id);
      await this.o.store.put(rec);
      this.o.log.info({ batch_id: rec.batch_id, rows: rec.rows.length, event: 'batch_created' }, 'batch pending');
      // rows answered at once from the render cache may all have ended before the record was stored
      await this.checkEnd(rec.batch_id);
      return rec.batch_id;
    };
    let id: string;
    if (s.idempotency) {
      const exists = async (bid: string) => (await this.get(bid)) !== undefined;
      id = (await door.idempotency.claim(`batch:${s.idempotency.key}`, s.idempotency.hash, create, exists)).jobId;
    } else id = await create();
    const rec = await this.get(id);
    if (!rec) throw new Error(`batch ${id} vanished`);
    return rec;
  }

  /** The batch's record, unless it is past the retention. */
  async get(id: string): Promise<BatchRecord | undefined> {
    const rec = await this.o.store.get(id);
    if (!rec || this.expired(rec)) return undefined;
    return rec;
  }

  private expired(rec: BatchRecord): boolean {
    return this.o.now() - rec.created_at >= this.o.retentionMs;
  }

  /** Each row's job record now (undefined once it is gone), a pending one with its live state. */
  async rows(rec: BatchRecord): Promise<(JobRecord | undefined)[]> {
    return Promise.all(rec.rows.map((r) => this.o.jobs.get(r.job_id)));
  }

  /** The batch's public view from its rows' records. */
  async view(rec: BatchRecord, jobs?: (JobRecord | undefined)[]): Promise<BatchView> {
    const recs = jobs ?? (await this.rows(rec));
    const counts = { pending: 0, ready: 0, error: 0 };
    let frames = 0;
    let done = 0;
    const views = await Promise.all(recs.map((job) => job && this.o.jobs.viewNow(job)));
    const rows = rec.rows.map((r, i) => {
      const job = recs[i];
      const n = Math.max(1, job?.frames ?? 1);
      frames += n;
      if (!job) {
        // its record is gone (retention, MAX_ENDED_JOBS): nothing of it can be served any more
        counts.error++;
        done += n;
        return { job_id: r.job_id, name: r.name, status: 'error' as const, code: CODE.not_found };
      }
      const v = views[i]!;
      counts[v.status]++;
      if (v.status === 'pending') {
        done += n * (v.progress ?? 0);
        return { job_id: r.job_id, name: r.name, status: 'pending' as const };
      }
      done += n;
      if (v.status === 'ready') return { job_id: r.job_id, name: r.name, status: 'ready' as const, url: v.url };
      return { job_id: r.job_id, name: r.name, status: 'error' as const, code: v.code ?? null };
    });
    const status = counts.pending > 0 ? 'pending' : counts.error > 0 ? 'error' : 'ready';
    return {
      batch_id: rec.batch_id,
      kind: rec.kind,
      status,
      created_at: rec.created_at,
      count: rec.rows.length,
      counts,
      progress: frames > 0 ? Math.min(1, done / frames) : 1,
      rows,
    };
  }

  /** Stops the end checks and the webhook deliveries of this process (a pending delivery resumes at the next start). */
  close(): void {
    for (const t of this.soon.values()) clearTimeout(t);
    this.soon.clear();
    this.o.webhooks?.close();
  }

  /** Cancels every row still pending (each ends `cancelled`); rows already ended keep their outputs. */
  async cancel(rec: BatchRecord): Promise<BatchView> {
    for (const r of rec.rows) await this.o.jobs.cancel(r.job_id);
    return this.view(rec);
  }

  /** Ends the batch once, when its last row has ended: told to listeners (events stream, webhook). */
  private checkEnd(id: string): Promise<void> {
    const next = (this.checking.get(id) ?? Promise.resolve()).then(() => this.endIfDone(id));
    this.checking.set(id, next);
    void next.finally(() => {
      if (this.checking.get(id) === next) this.checking.delete(id);
    });
    return next;
  }

  private async endIfDone(id: string): Promise<void> {
    const rec = await this.o.store.get(id);
    if (!rec || rec.ended_at !== undefined) return;
    const view = await this.view(rec);
    if (view.status === 'pending') return;
    const fresh = rec;
    fresh.ended_at = this.o.now();
    await this.o.store.put(fresh);
    for (const r of fresh.rows) this.batchOf.delete(r.job_id);
    this.o.log.info(
      { batch_id: id, status: view.status, ...view.counts, event: 'batch_ended' },
      `batch ${view.status}`,
    );
    this.events.emit('ended', fresh, view);
  }
}
