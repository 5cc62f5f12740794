// MAX_ENDED_JOBS: ended job records kept at most. Past the cap, the record (and output) of the job that ended first
// goes, so memory, the journal and Redis are bounded by configuration, not by how fast clients POST. In Redis mode
// the count is shared (LifecycleStore.keepEnded): whichever process ends a job evicts what it pushes past the cap.
// Apart from the lifecycle: it listens to ends, it decides none.
import type { Logger } from 'pino';
import type { JobRecord, LifecycleStore } from './store/port.js';
import type { OutputStore } from '../storage/output-store.js';
import { JobRecords } from './job-records.js';

export interface EndedCapOptions {
  store: LifecycleStore;
  outputs: OutputStore;
  /** MAX_ENDED_JOBS */
  max: number;
  /**
   * the store counts ended jobs in this process only (locally(): the embedded service), so seed() rebuilds that
   * count from the records at start; Redis keeps its count shared and lasting
   */
  countedInProcess: boolean;
  log: Logger;
  now: () => number;
}

export class EndedCap {
  private readonly store: LifecycleStore;
  private readonly outputs: OutputStore;
  private readonly max: number;
  private readonly countedInProcess: boolean;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly records: JobRecords;

  constructor({ store, outputs, max, countedInProcess, log, now }: EndedCapOptions) {
    this.store = store;
    this.outputs = outputs;
    this.max = max;
    this.countedInProcess = countedInProcess;
    this.log = log;
    this.now = now;
    this.records = new JobRecords(store, now);
  }

  /** Counts an ended job against the cap, and evicts what it pushes past it (in the background: an end never waits). */
  count(rec: JobRecord): void {
    void this.store
      .keepEnded(rec.job_id, rec.completed_at ?? this.now(), this.max)
      .then((gone) => Promise.all(gone.map((id) => this.evict(id))))
      .catch((err) => this.log.warn({ err, job_id: rec.job_id }, 'evicting a record failed'));
  }

  /** At start: the ended records a store keeps in this process's memory are counted, oldest-ended first. */
  async seed(): Promise<void> {
    if (!this.countedInProcess) return;
    const ended = (await this.store.list())
      .filter((r) => r.status !== 'pending')
      .sort((a, b) => (a.completed_at ?? a.created_at) - (b.completed_at ?? b.created_at));
    for (const r of ended) this.count(r);
  }

  private async evict(id: string): Promise<void> {
    const rec = await this.records.get(id);
    if (!rec || rec.status === 'pending') return;
    await this.records.remove(id);
    if (rec.output) await this.outputs.remove(rec.output);
    this.log.info({ job_id: id, event: 'job_evicted' }, 'ended job record evicted (MAX_ENDED_JOBS)');
  }
}
