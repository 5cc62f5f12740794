// The admission of a batch (POST /v1/batches), all or nothing: every row is checked (its name, its params laid over
// the batch's against its kind's schema, its args against the scene's signature) and the whole batch priced (each
// distinct row's estimate, the queue's room under MAX_QUEUED_JOBS, the client's places under
// MAX_QUEUED_JOBS_PER_CLIENT) before any job exists; a refusal names the row. Then each row becomes a job by the
// job service's one create(), carrying the batch's id (the fair order lines the rows up as one client's, so another
// client's job is not held behind them). Only a refusal that comes between two creations (another API process
// filling the queue meanwhile, in Redis mode) can leave rows made: those are cancelled at once and the refusal
// answered. It knows nothing of HTTP: the route hands it the body, its kind's params check and what it knows of the
// sender, and answers the ServiceError it throws.
import { randomUUID } from 'node:crypto';
import { canonicalJson } from '../../../contract/canonical-json.js';
import { CODE } from '../../../contract/error-codes.js';
import {
  badRequest,
  invalidArgs,
  serviceError,
  ServiceError,
  type ArgsProblem,
} from '../../../contract/service-error.js';
import type { BatchKind } from '../../../contract/batch-view.js';
import { checkedSceneArgs } from '../scene-args.js';
import { queueFull, Refused } from '../../../contract/refusals.js';
import { checkedWebhook, CLIENT_QUEUE_RETRY_S, knownAssets, NO_CACHE, type SubmitDoor } from '../submit.js';
import type { JobParams } from '../store/port.js';
import type { WorkAdmission } from '../work-admission.js';
import type { JobService } from '../job-service.js';
import type { BatchRecord, BatchRow } from './batch-store.js';

/** A batch request's body once its schema passed (http/schemas/batches.ts's BatchRequest). */
export interface BatchBody {
  kind: BatchKind;
  source: string;
  params?: Record<string, unknown>;
  assets?: Record<string, string>;
  webhook?: { url: string; secret?: string };
  rows: { args?: Record<string, unknown>; name?: string; params?: Record<string, unknown> }[];
}

/**
 * The batch kind's params read as its single-job POST reads them (that route's schema, the door's): the params, or
 * the first problem's sentence. Each row's params are laid over the batch's and read by it here, so a refusal names
 * the row.
 */
export type ParamsCheck = (params: Record<string, unknown>) => { params: JobParams } | { problem: string | undefined };

/** A batch request as the route read it: the validated body, its kind's params check and what HTTP knows of its sender. */
export interface BatchSubmission {
  body: BatchBody;
  paramsCheck: ParamsCheck;
  sentAssets?: Record<string, string>;
  cacheControl: string;
  owner?: string;
  client: string;
  idempotency?: { key: string; hash: string };
}

/** A row once checked: what its job is made of. */
interface CheckedRow {
  name: string;
  params: JobParams;
  args?: Record<string, unknown>;
  scene?: string;
  work?: WorkAdmission;
}

/** The default name of row i of n: its index, zero-padded to the width of the last one (at least 3 digits). */
export function defaultRowName(i: number, n: number): string {
  return String(i).padStart(Math.max(3, String(n - 1).length), '0');
}

/** Checks and prices the whole batch, then makes its jobs; the batch's record (not yet stored). */
export async function admitBatch(
  jobs: JobService,
  door: SubmitDoor,
  s: BatchSubmission,
  maxRows: number,
  now: number,
): Promise<BatchRecord> {
  const b = s.body;
  const kind = b.kind;
  if (b.rows.length > maxRows)
    throw badRequest(
      CODE.too_many_rows,
      `the batch has ${b.rows.length} rows; at most ${maxRows} (BATCH_MAX_ROWS): split it in several batches`,
    );
  const rows = checkedRows(b, s.paramsCheck);
  const assets = await knownAssets(door.assets, s.sentAssets ?? b.assets, s.owner);
  const webhook = await checkedWebhook(door.webhookPolicy, b.webhook);
  const storage = await jobs.storageRefusal();
  if (storage) throw new Refused(storage);
  const early = jobs.admission();
  if (early) throw new Refused(early);
  // each distinct row is estimated once: a thousand rows of one template often repeat their params and args
  const estimates = new Map<string, Promise<WorkAdmission>>();
  for (const [i, row] of rows.entries()) {
    const key = canonicalJson({ p: row.params, a: row.args ?? null });
    let work = estimates.get(key);
    if (!work) {
      work = jobs.estimate(kind, b.source, row.params, assets, row.args);
      estimates.set(key, work);
    }
    row.work = await work;
    if (row.work.tooLarge) throw badRequest(CODE.output_too_large, `rows[${i}]: ${row.work.tooLarge}`);
    if (row.work.full) throw new Refused(row.work.full);
    if (row.work.refusal) throw badRequest(CODE.too_much_work, `rows[${i}]: ${row.work.refusal}`);
  }
  // the queue takes the batch whole or not at all
  const room = await jobs.room();
  if (room.left < rows.length) throw new Refused(queueFull(room.queued, room.cap));
  const late = jobs.admission();
  if (late) throw new Refused(late);
  const quota = door.quota;
  let taken = 0;
  if (quota) {
    while (taken < rows.length && quota.take(s.client)) taken++;
    if (taken < rows.length) {
      for (; taken > 0; taken--) quota.giveBack(s.client);
      throw serviceError(
        CODE.client_queue_full,
        `the batch's ${rows.length} rows do not fit in this client's ${quota.max} places (MAX_QUEUED_JOBS_PER_CLIENT); retry when some of its jobs have ended, or send a smaller batch`,
        CLIENT_QUEUE_RETRY_S,
      );
    }
  }
  const batchId = randomUUID();
  const useCache = (b.params as { cache?: boolean } | undefined)?.cache !== false && !NO_CACHE.test(s.cacheControl);
  const made: BatchRow[] = [];
  try {
    for (const row of rows) {
      let bound = false;
      const { cache, ...params } = row.params as JobParams & { cache?: boolean };
      const rec = await jobs.create(
        kind,
        b.source,
        params,
        assets,
        {
          cache: useCache && cache !== false,
          batch_id: batchId,
          ...(row.args && row.scene ? { args: row.args, scene: row.scene } : {}),
          ...(s.owner ? { owner: s.owner } : {}),
          onId: (id) => {
            bound = true;
            if (quota) {
              quota.bind(s.client, id);
              taken--;
            }
          },
        },
        row.work,
      );
      if (!bound) throw new Error('the job was not made');
      made.push({ job_id: rec.job_id, name: row.name, ...(row.args ? { args: row.args } : {}) });
    }
  } catch (err) {
    // the places not yet bound to a job go back; the rows already made are cancelled (their places go back as they end)
    if (quota) for (; taken > 0; taken--) quota.giveBack(s.client);
    for (const r of made) await jobs.cancel(r.job_id).catch(() => {});
    throw err;
  }
  return {
    batch_id: batchId,
    kind,
    created_at: now,
    rows: made,
    ...(s.owner ? { owner: s.owner } : {}),
    ...(s.idempotency ? { idempotency: s.idempotency } : {}),
    ...(webhook ? { webhook } : {}),
  };
}

/** Every row's name, params and args, checked before anything else is looked up; the first bad row is refused. */
function checkedRows(b: BatchBody, paramsCheck: ParamsCheck): CheckedRow[] {
  const base = paramsCheck(b.params ?? {});
  if ('problem' in base) throw badRequest(CODE.invalid_params, base.problem);
  const names = new Map<string, number>();
  return b.rows.map((row, i) => {
    const name = row.name ?? defaultRowName(i, b.rows.length);
    const twice = names.get(name);
    if (twice !== undefined)
      throw badRequest(
        CODE.invalid_rows,
        `rows[${i}]: the name "${name}" is rows[${twice}]'s too; names are unique in a batch`,
      );
    names.set(name, i);
    const merged = paramsCheck({ ...(b.params ?? {}), ...(row.params ?? {}) });
    if ('problem' in merged) throw badRequest(CODE.invalid_params, `rows[${i}]: ${merged.problem}`);
    const params = merged.params;
    if (row.args === undefined || Object.keys(row.args).length === 0) return { name, params };
    try {
      const d = checkedSceneArgs(b.source, row.args);
      return { name, params, args: row.args, ...(d.scene ? { scene: d.scene.name } : {}) };
    } catch (err) {
      const problems = err instanceof ServiceError ? (err.details?.problems as ArgsProblem[] | undefined) : undefined;
      if (problems)
        throw invalidArgs(
          problems.map((p) => ({
            ...p,
            path: `rows[${i}].${p.path}`,
            message: `rows[${i}]: ${p.message}`,
          })),
        );
      throw err;
    }
  });
}
