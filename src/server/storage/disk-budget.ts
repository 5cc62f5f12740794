// The output disk budget (OUTPUT_MAX_BYTES): the policy the output store applies. Pure: which output files to delete
// so the store fits its budget. Oldest first; never a file still referenced by a job younger than the protection
// window (24 hours), and never the file of a job that is rendering. Files referenced by older jobs (a RETENTION_MS
// above 24 h) and stray files (no job at all: left by a crash) may go; the caller expires the job of a deleted output
// with it.
import { ownerOf } from './partial-files.js';
import { DEFAULT_RETENTION_MS } from '../../config/settings.js';
import { CODE } from '../../contract/error-codes.js';
import { describeDuration } from '../../contract/describe-duration.js';
import type { Refusal } from '../../contract/refusals.js';

export const PROTECT_MS = DEFAULT_RETENTION_MS;

/** The refusal of new work while the output budget is full of outputs inside the protection window. */
export function storageFull(usedBytes: number, capBytes: number): Refusal {
  return {
    code: CODE.storage_full,
    error: `output storage is full (${usedBytes} of ${capBytes} bytes held by jobs younger than ${describeDuration(PROTECT_MS)}); retry later`,
    retryAfterSeconds: 60,
  };
}

export interface OutputFile {
  name: string;
  bytes: number;
  mtimeMs: number;
}

export interface OutputRef {
  filename: string;
  job_id: string;
  /** when the output was written (ready) or the job was created (pending) */
  at: number;
  /** a pending job's file (being written): never evicted */
  rendering?: boolean;
}

export interface EvictionPlan {
  /** file names to delete, oldest first */
  evict: string[];
  /** jobs whose output is evicted (their records expire with it) */
  jobs: string[];
  /** bytes on disk before */
  total: number;
  /** bytes on disk after the evictions */
  after: number;
}

export function planEviction(
  files: readonly OutputFile[],
  refs: readonly OutputRef[],
  budgetBytes: number,
  now: number,
  protectMs = PROTECT_MS,
): EvictionPlan {
  const byName = new Map<string, OutputRef>();
  for (const r of refs) byName.set(r.filename, r);
  const total = files.reduce((s, f) => s + f.bytes, 0);
  const plan: EvictionPlan = { evict: [], jobs: [], total, after: total };
  if (total <= budgetBytes) return plan;
  const age = (f: OutputFile) => byName.get(f.name)?.at ?? f.mtimeMs;
  const candidates = files
    .filter((f) => {
      const r = byName.get(f.name) ?? byName.get(ownerOf(f.name));
      if (!r) return true;
      if (r.rendering) return false;
      return r.at + protectMs <= now;
    })
    .sort((a, b) => age(a) - age(b) || (a.name < b.name ? -1 : 1));
  for (const f of candidates) {
    if (plan.after <= budgetBytes) break;
    plan.evict.push(f.name);
    plan.after -= f.bytes;
    const r = byName.get(f.name);
    if (r) plan.jobs.push(r.job_id);
  }
  return plan;
}
