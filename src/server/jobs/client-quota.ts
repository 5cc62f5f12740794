// Jobs waiting or rendering per client (MAX_QUEUED_JOBS_PER_CLIENT): a client is its API key when it presents one,
// else its address, so one client cannot fill the whole queue (MAX_QUEUED_JOBS) for everyone. A place is taken before
// the job is stored (an exact cap under concurrent POSTs), bound to the job before its record is written (a cache hit
// ends within its creation), and given back when the job ends (JobService's `ended`).
// Embedded mode only: with REDIS_URL the jobs end in the workers, which this process does not hear of.
import type { EventEmitter } from 'node:events';
import type { JobEvents } from './job-service.js';

export class ClientQuota {
  private readonly held = new Map<string, number>();
  private readonly ownerOf = new Map<string, string>();

  constructor(
    readonly max: number,
    events: EventEmitter<JobEvents>,
  ) {
    events.on('ended', (rec) => {
      const client = this.ownerOf.get(rec.job_id);
      if (client === undefined) return;
      this.ownerOf.delete(rec.job_id);
      this.giveBack(client);
    });
  }

  /** Takes a place for a new job of this client; false when it holds max already. */
  take(client: string): boolean {
    const n = this.held.get(client) ?? 0;
    if (n >= this.max) return false;
    this.held.set(client, n + 1);
    return true;
  }

  /** The job the place went to: its end gives the place back. */
  bind(client: string, jobId: string): void {
    this.ownerOf.set(jobId, client);
  }

  /** Gives back the place bound to a job that was never stored after all (its creation failed). */
  release(jobId: string): void {
    const client = this.ownerOf.get(jobId);
    if (client === undefined) return;
    this.ownerOf.delete(jobId);
    this.giveBack(client);
  }

  /** Gives a place back (the job ended, or was never stored). */
  giveBack(client: string): void {
    const n = (this.held.get(client) ?? 1) - 1;
    if (n > 0) this.held.set(client, n);
    else this.held.delete(client);
  }
}
