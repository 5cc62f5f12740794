// The job record's one owner: every change of a record is written here, one function per transition, as BullMQ's Job
// writes its own state. A record is born pending (create), starts (start), is pending again when a stop hands it back
// (unstart) or when the start after a crash recovers it (recovered), ends once, ready (ready) or in error (fail,
// cancel), has its webhook's delivery state kept (webhookAttempt), and goes at its expiry (remove). Everything else
// reads. A start and an end are written only while the stored record is pending (LifecycleStore's atomic steps), so
// the first end wins, from whichever process, and a record that ended never starts or ends again. test/architecture/
// record-writers.test.ts fails on a write of a record anywhere else.
import type { JobEnd } from '../../render/failure-reasons.js';
import type { JobRecord, LifecycleStore, WebhookState } from './store/port.js';

export class JobRecords {
  constructor(
    private readonly store: LifecycleStore,
    private readonly now: () => number,
  ) {}

  get(id: string): Promise<JobRecord | undefined> {
    return this.store.get(id);
  }

  list(): Promise<JobRecord[]> {
    return this.store.list();
  }

  /** A new job's record, pending (new-record.ts made it): stored as it is. */
  async create(rec: JobRecord): Promise<void> {
    if (rec.status !== 'pending' || rec.started_at !== undefined)
      throw new Error(`a new job is pending: ${rec.job_id}`);
    await this.store.put(rec);
  }

  /**
   * pending -> started: sets started_at (on rec too) while the stored record is pending and not started; false when
   * it is not (then rec is left unstarted, so nobody renders a job a cancel ended meanwhile).
   */
  async start(rec: JobRecord): Promise<boolean> {
    if (rec.started_at !== undefined) return false;
    return this.store.markStarted(rec, this.now());
  }

  /**
   * started -> pending, as if never started (a graceful stop hands the job back for the next start): the record,
   * or undefined when it had ended or never started.
   */
  async unstart(id: string): Promise<JobRecord | undefined> {
    const rec = await this.store.get(id);
    if (!rec || rec.status !== 'pending' || rec.started_at === undefined) return undefined;
    delete rec.started_at;
    delete rec.progress;
    await this.store.put(rec);
    return rec;
  }

  /**
   * At start, what the last run left (durability/recovery.ts plans it): a job it was rendering is pending again with
   * its interruption counted, or ends in error (`interrupted`) past MAX_INTERRUPTIONS. Written only over a pending
   * record.
   */
  async recovered(planned: JobRecord): Promise<void> {
    if (planned.status !== 'pending') {
      await this.store.endIfPending(planned);
      return;
    }
    if ((await this.store.get(planned.job_id))?.status !== 'pending') return;
    await this.store.put(planned);
  }

  /**
   * pending -> ready with the fields `fields` gives for the stored record (job-failure.ts's readyFields, the render
   * cache's cachedFields); `before` sees the ready record before it is written (the render cache's entry goes
   * first). The ready record, or undefined when the job had ended meanwhile (a cancel won).
   */
  async ready(
    id: string,
    fields: (rec: JobRecord) => Partial<JobRecord>,
    before?: (ready: JobRecord) => Promise<void>,
  ): Promise<JobRecord | undefined> {
    const cur = await this.store.get(id);
    if (!cur || cur.status !== 'pending') return undefined;
    const ready: JobRecord = { ...cur, ...fields(cur), status: 'ready' };
    await before?.(ready);
    return (await this.store.endIfPending(ready)) ? ready : undefined;
  }

  /**
   * pending -> error with `why` (its message and registered code, a compile's diagnostics): the ended record, or
   * undefined when it had ended already (the first end wins, a later one is a no-op).
   */
  async fail(id: string, why: JobEnd): Promise<JobRecord | undefined> {
    const cur = await this.store.get(id);
    if (!cur || cur.status !== 'pending') return undefined;
    const t = this.now();
    const ended: JobRecord = {
      ...cur,
      status: 'error',
      completed_at: t,
      message: why.message,
      code: why.code,
      ...(why.diagnostics ? { diagnostics: why.diagnostics } : {}),
      timings: {
        ...(cur.started_at ? { queue_wait_ms: cur.started_at - cur.created_at } : {}),
        total_ms: t - cur.created_at,
      },
    };
    delete ended.progress;
    return (await this.store.endIfPending(ended)) ? ended : undefined;
  }

  /**
   * An ended job's webhook delivery moved (an attempt made, webhooks/attempt-state.ts): `change` edits the stored
   * state, nothing else of the record changes. The record written, or undefined when it has no webhook or is gone.
   */
  async webhookAttempt(id: string, change: (w: WebhookState) => void): Promise<JobRecord | undefined> {
    const rec = await this.store.get(id);
    if (!rec?.webhook || rec.status === 'pending') return undefined;
    change(rec.webhook);
    await this.store.put(rec);
    return rec;
  }

  /**
   * A record goes: an ended one at its expiry (retention, MAX_ENDED_JOBS, the output budget), or a pending one that
   * was stored for a render-cache copy that could not be made (the job is stored again when it is queued).
   */
  remove(id: string): Promise<void> {
    return this.store.delete(id);
  }
}
