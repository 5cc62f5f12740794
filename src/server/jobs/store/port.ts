// The store port: a job's record (every field of a job in one plain, JSON-serialisable record) and the interfaces
// the job service writes it through (JobStore; LifecycleStore, whose start and end must not race). Adapters: memory.ts
// (and locally(), for any store one process holds), journal.ts (the durable journal), redis.ts (Redis mode). The
// interfaces hold what every adapter means; what one alone has (the journal's writability, Redis's keeping of pending
// records) is wired by its backend (services.ts, redis/redis-backend.ts) to the code that uses it.
import type { JobKind } from '../../../contract/job-kind.js';
import { createHash } from 'node:crypto';

export type JobStatus = 'pending' | 'ready' | 'error';

/** Every kind's params in one record (the renderer's RenderParams: frame, video, gif, mesh, vectorize). */
import type { PreparedJob, RenderParams } from '../../../render/renderer-port.js';
export type JobParams = RenderParams;

export interface JobOutput {
  filename: string;
  mime: string;
  bytes: number;
  sha256: string;
  width: number;
  height: number;
  written_at: number;
}

export interface JobDiagnostic {
  code: string;
  message: string;
  line?: number;
  column?: number;
  [k: string]: unknown;
}

export interface JobRecord {
  job_id: string;
  kind: JobKind;
  status: JobStatus;
  created_at: number;
  started_at?: number;
  completed_at?: number;
  /** the scene; '' once the job has ended (storedForm below), when source_sha256 says which it was */
  source: string;
  source_sha256?: string;
  params: JobParams;
  /** in-source path -> asset key */
  assets: Record<string, string>;
  /** the request's scene arguments as it sent them (checked at the door), and the scene they render */
  args?: Record<string, unknown>;
  scene?: string;
  progress?: number;
  output?: JobOutput;
  message?: string;
  code?: string | null;
  diagnostics?: JobDiagnostic[];
  /** the source's warnings, found at admission (LIB*, ANI001): the job renders, its ready view lists them */
  warnings?: JobDiagnostic[];
  runner?: string;
  timings?: Record<string, number>;
  /** a video's frame count, planned at admission (with REDIS_URL it says whether it renders in chunks) */
  frames?: number;
  /** what admission learnt of a drawn job (its program's key, frames, size): the renderer takes it as its input */
  prepared?: PreparedJob;
  /** the estimated seconds of rendering, from admission: the queue's order (jobs/queue/fair-order.ts, BullMQ's priority) */
  estimate_s?: number;
  /** times the service stopped while this job was rendering (see durability/recovery.ts) */
  interrupted?: number;
  /** where the job's end is POSTed, and how far that delivery got (webhooks/dispatcher.ts); never in the public view */
  webhook?: WebhookState;
  /** the client's Idempotency-Key and the hash of the request it came with (jobs/idempotency.ts) */
  idempotency?: { key: string; hash: string };
  /** the render cache's key of this job (jobs/render-cache.ts): its output is recorded under it once ready */
  cache_key?: string;
  /** ready at once from the render cache: its output is a copy of an identical job's */
  cached?: boolean;
  /** the batch the job is a row of (POST /v1/batches): the fair order lines a batch's rows up as one client's */
  batch_id?: string;
  /** the id of the API key that made the job (http/tenancy.ts); another key's requests do not reach it */
  owner?: string;
}

export interface WebhookState {
  url: string;
  secret?: string;
  /** delivery attempts made so far */
  attempts?: number;
  /** when the next attempt is due (Unix ms), while a delivery is pending */
  next_at?: number;
  delivered_at?: number;
  /** set when the retry schedule ran out without a 2xx */
  gave_up_at?: number;
}

export interface JobStore {
  get(id: string): Promise<JobRecord | undefined>;
  put(rec: JobRecord): Promise<void>;
  delete(id: string): Promise<void>;
  list(): Promise<JobRecord[]>;
}

/**
 * A store with the two steps of a job's life that must not race: its start and its end are written only while the
 * record is still pending, so of a cancel and a finish racing for one job exactly one wins (and a start never undoes
 * a cancel). RedisJobStore does each in one script on the server; a store one process holds, with locally().
 */
export interface LifecycleStore extends JobStore {
  /**
   * Sets started_at (on rec too) if the stored record is pending; false when it is not, and then rec is left as it
   * was (no started_at): a job cancelled at that moment must not look started to the caller, which would render it.
   */
  markStarted(rec: JobRecord, at: number): Promise<boolean>;
  /** Writes rec (an ended record) if the stored one is pending; false when it is gone or ended. */
  endIfPending(rec: JobRecord): Promise<boolean>;
  /**
   * Counts an ended job against MAX_ENDED_JOBS (`cap`); returns the jobs past it, oldest-ended first, whose records
   * and outputs must go.
   */
  keepEnded(id: string, endedAt: number, cap: number): Promise<string[]>;
}

/**
 * The record as every store keeps it: an ended one without its source (its SHA-256 instead), a pending one as it
 * is. An ended job's view, webhook and idempotency key need no source; and a source is up to 64 KiB while a job that
 * fails to compile ends in milliseconds, so records that kept theirs grew the process and the journal by about
 * 350 KB a job for as fast as a client could POST.
 */
export function storedForm(rec: JobRecord): JobRecord {
  if (rec.status === 'pending' || rec.source === '') return rec;
  return { ...rec, source: '', source_sha256: createHash('sha256').update(rec.source).digest('hex') };
}
