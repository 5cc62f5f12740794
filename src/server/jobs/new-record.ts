// A new job's record, before it is stored: what the client sent and what admission learnt of it (its estimate and
// frame count). Apart from the lifecycle (job-service.ts) so admission (submit.ts) can name what a job may carry
// without importing the service that runs it.
import { randomUUID } from 'node:crypto';
import type { JobRecord, JobParams, WebhookState } from './store/port.js';
import type { WorkAdmission } from './work-admission.js';
import type { JobKind } from '../../contract/job-kind.js';

/** What a client may attach to a new job besides its body (webhooks, idempotency). */
export interface JobExtras {
  webhook?: WebhookState;
  idempotency?: { key: string; hash: string };
  /** false: render afresh, not from the render cache (Cache-Control: no-cache, params.cache false); it still fills it */
  cache?: boolean;
  /** the id of the API key the job was made with (http/tenancy.ts) */
  owner?: string;
  /** the request's scene arguments (checked at the door) and the scene they render */
  args?: Record<string, unknown>;
  scene?: string;
  /** the batch the job is a row of */
  batch_id?: string;
  /**
   * Called with the new job's id before its record is stored, so whatever the caller holds for the job (a client's
   * queue place) is bound to it before the job can end: a cache hit ends in create() itself.
   */
  onId?: (id: string) => void;
}

/** A new pending job's record: what the client sent, and what admission learnt of it (estimate, frames). */
export function newRecord(
  kind: JobKind,
  source: string,
  params: JobParams,
  assets: Record<string, string>,
  extras: JobExtras,
  work: WorkAdmission,
  now: number,
): JobRecord {
  const { cache: _useCache, onId: _onId, ...kept } = extras;
  return {
    job_id: randomUUID(),
    kind,
    status: 'pending',
    created_at: now,
    source,
    params,
    assets,
    ...kept,
    ...(work.seconds !== undefined && Number.isFinite(work.seconds) ? { estimate_s: work.seconds } : {}),
    ...(work.frames !== undefined ? { frames: work.frames } : {}),
    ...(work.prepared ? { prepared: work.prepared } : {}),
    ...(work.warnings && work.warnings.length > 0 ? { warnings: work.warnings } : {}),
  };
}
