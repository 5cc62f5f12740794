// Idempotency-Key (POST /v1/render, /v1/frame): the same key with the same request within IDEMPOTENCY_TTL_MS answers the same
// job; the same key with another request is 422 idempotency_mismatch. A client that retries a POST after a timeout
// so never makes two jobs.
//
// The check and the claim happen in one synchronous step (the entry holds the creation's promise before anything is
// awaited), so ten identical requests arriving together make one job: the first creates it, the others await it.
// The key and the request's hash are stored in the job record (the journal), and the index is rebuilt from the
// records at start, so a restart keeps them. The keys are the job domain's (the admission claims them); reading the
// header and scoping it to its caller is the HTTP side's (http/tenancy.ts).
import { canonicalJson } from '../../contract/canonical-json.js';
import { createHash } from 'node:crypto';
import { CODE } from '../../contract/error-codes.js';
import { DEFAULT_RETENTION_MS } from '../../config/settings.js';
import { describeDuration } from '../../contract/describe-duration.js';
import { serviceError, type ServiceError } from '../../contract/service-error.js';
import type { JobRecord } from './store/port.js';

/** The longest a key lives: the default retention (24 hours). */
export const IDEMPOTENCY_TTL_MS = DEFAULT_RETENTION_MS;

/** A key lives IDEMPOTENCY_TTL_MS, or as long as job records do when RETENTION_MS is shorter. */
export const idempotencyTtl = (retentionMs: number): number => Math.min(IDEMPOTENCY_TTL_MS, retentionMs);

/** Where keys are kept: this process (IdempotencyIndex, over the journal) or Redis (redis/redis-idempotency.ts). */
export interface IdempotencyKeys {
  /**
   * The job for this key: the one an earlier request with the same hash made (replayed: true), or the one `create`
   * makes now. A failed creation frees the key; a key whose job's record is gone (`exists` false) is free again.
   */
  claim(
    key: string,
    hash: string,
    create: () => Promise<string>,
    exists?: (jobId: string) => Promise<boolean>,
  ): Promise<{ jobId: string; replayed: boolean }>;
}

interface Entry {
  hash: string;
  at: number;
  jobId: Promise<string>;
}

export class IdempotencyIndex implements IdempotencyKeys {
  private readonly entries = new Map<string, Entry>();
  private claims = 0;

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
  ) {}

  /** Rebuilds the index from the stored records (at start). */
  seed(records: readonly JobRecord[]): void {
    for (const r of records) {
      if (r.idempotency && this.now() - r.created_at < this.ttlMs)
        this.entries.set(r.idempotency.key, {
          hash: r.idempotency.hash,
          at: r.created_at,
          jobId: Promise.resolve(r.job_id),
        });
    }
  }

  /** Remembers a key another record kept (a batch's, at start), as seed() does for job records. */
  remember(key: string, hash: string, at: number, id: string): void {
    if (this.now() - at < this.ttlMs) this.entries.set(key, { hash, at, jobId: Promise.resolve(id) });
  }

  /**
   * The job for this key: the one an earlier request with the same hash made (replayed: true), or the one `create`
   * makes now. A failed creation (400, 503) frees the key, so the client may retry with it. A key lives as long as
   * its job: once `exists` says the job's record is gone (retention, the cap on ended records), the key is free.
   */
  async claim(
    key: string,
    hash: string,
    create: () => Promise<string>,
    exists: (jobId: string) => Promise<boolean> = async () => true,
  ): Promise<{ jobId: string; replayed: boolean }> {
    if (++this.claims % 256 === 0) this.prune();
    const known = this.entries.get(key);
    if (known && this.now() - known.at < this.ttlMs) {
      if (known.hash !== hash) throw mismatch(this.ttlMs);
      const jobId = await known.jobId;
      if (await exists(jobId)) return { jobId, replayed: true };
      if (this.entries.get(key) === known) this.entries.delete(key);
      return this.claim(key, hash, create, exists);
    }
    const entry: Entry = { hash, at: this.now(), jobId: create() };
    this.entries.set(key, entry);
    entry.jobId.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return { jobId: await entry.jobId, replayed: false };
  }

  /** Drops the keys older than the TTL. */
  prune(): void {
    const now = this.now();
    for (const [k, e] of this.entries) if (now - e.at >= this.ttlMs) this.entries.delete(k);
  }
}

/** The request a key is bound to: the route and its validated body, with object keys in a fixed order. */
export function requestHash(url: string, body: unknown): string {
  return createHash('sha256').update(url).update('\n').update(canonicalJson(body)).digest('hex');
}

/** The 422 for a key reused with another request, naming how long a key lives here (not the registry's default). */
export function mismatch(ttlMs: number): ServiceError {
  return serviceError(
    CODE.idempotency_mismatch,
    `this Idempotency-Key was used with a different request in the last ${describeDuration(ttlMs)}`,
  );
}
