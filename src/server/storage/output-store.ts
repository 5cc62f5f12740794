// The output store (the storage's `outputs` area): the one place that knows an output's file name
// (`<job_id>.<ext>`), measures its size and SHA-256 once a render has written it into scratch, uploads it, hands a file
// back only to the ready job that owns it, and keeps the area within OUTPUT_MAX_BYTES (disk-budget.ts decides what
// goes; the jobs of evicted outputs expire with them).
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import { OUTPUT_MIME } from '../../contract/mime.js';
import { outputExtOf, type FormatParams } from '../../contract/outputs.js';
import { LIMITS, OUTPUT_FILENAME_RE } from '../../contract/limits.js';
import type { JobKind } from '../../contract/job-kind.js';
import type { JobOutput, LifecycleStore } from '../jobs/store/port.js';
import { JobRecords } from '../jobs/job-records.js';
import type { Refusal } from '../../contract/refusals.js';
import { PROTECT_MS, planEviction, storageFull, type OutputFile, type OutputRef } from './disk-budget.js';
import { describeDuration } from '../../contract/describe-duration.js';
import { PARTIAL_SUFFIXES } from '../../render/renderer-port.js';
import { isPartial, ownerOf } from './partial-files.js';
import type { Storage } from './storage.js';

/** How an output may be cached by clients: it never changes under its name. */
export const OUTPUT_CACHE_CONTROL = `public, max-age=${LIMITS.outputCacheSeconds}, immutable`;

/** SigV4's longest presigned URL (7 days). */
const PRESIGN_MAX_SECONDS = 7 * 24 * 3600;

export interface OutputStoreOptions {
  /** where the outputs are kept (storage/data-stores.ts) */
  files: Storage;
  /** the job records: which outputs are held, and the records that expire with an evicted output */
  store: LifecycleStore;
  /** disk budget of the directory in bytes (default: no cap) */
  maxBytes?: number;
  /** how long an output is kept after it was written (RETENTION_MS; a presigned URL lives as long) */
  retentionMs?: number;
  log: Logger;
  now: () => number;
  /**
   * With REDIS_URL: the bytes stored, counted once for every process that shares the storage (jobs/store/redis.ts). Each
   * process adds what it writes and removes, a recount sets it, and a process reads it before it admits a job; without
   * it an API process that renders nothing never learnt that the workers had filled the budget.
   */
  sharedCount?: SharedByteCount;
  /** with a bucket: a URL any client can GET a key's bytes from for `seconds` (S3Storage.publicUrl) */
  presign?: (key: string, seconds: number) => Promise<string>;
}

/** A byte count kept outside the process, shared by every process that writes to the same storage. */
export interface SharedByteCount {
  /** adds delta (negative: removed bytes) and gives the total after */
  addOutputBytes(delta: number): Promise<number>;
  setOutputBytes(total: number): Promise<void>;
  outputBytes(): Promise<number>;
}

/** A ready job's output file, found by its public name. */
export interface StoredOutput {
  size: number;
  output: JobOutput;
  /** the API key id of the job whose output it is (http/tenancy.ts) */
  owner?: string;
}

export class OutputStore {
  /** bytes in the store, kept up to date as outputs come and go (a recount at every budget check) */
  private bytes = 0;

  /** the files (shared by every process with REDIS_URL) */
  private readonly files: Storage;

  /** the job records: which outputs are held; the records of jobs whose output the budget evicts go through them */
  private readonly records: JobRecords;
  private readonly maxBytes?: number;
  private readonly retentionMs?: number;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly sharedCount?: SharedByteCount;
  private readonly presign?: (key: string, seconds: number) => Promise<string>;

  constructor({ files, store, maxBytes, retentionMs, log, now, sharedCount, presign }: OutputStoreOptions) {
    this.records = new JobRecords(store, now);
    this.maxBytes = maxBytes;
    this.retentionMs = retentionMs;
    this.log = log;
    this.now = now;
    this.sharedCount = sharedCount;
    this.presign = presign;
    this.files = files;
  }

  /** shared: other processes render into the same scratch (a cluster on one DATA_DIR) */
  async init(opts: { shared?: boolean } = {}): Promise<void> {
    await this.files.init(opts);
  }

  /** The name of a job's output, written or still to be written. */
  static nameOf(id: string, kind: JobKind, params?: FormatParams): string {
    return `${id}.${outputExtOf(kind, params)}`;
  }

  /** The local scratch file the renderer writes a job's output into (upload it with add()). */
  scratchPath(id: string, kind: JobKind, params?: FormatParams): Promise<string> {
    return this.files.scratchPath(OutputStore.nameOf(id, kind, params));
  }

  /**
   * Measures the output a render has just written into its scratch file, uploads it and counts it against the budget.
   * Over the budget, older outputs go before this one is announced (its job is still pending, so it is never the one
   * evicted).
   */
  async add(
    id: string,
    kind: JobKind,
    size: { width: number; height: number },
    params?: FormatParams,
  ): Promise<JobOutput> {
    const filename = OutputStore.nameOf(id, kind, params);
    const path = await this.files.scratchPath(filename);
    const st = await stat(path).catch(() => undefined);
    if (!st) throw new Error(`the render left no output at ${path}`);
    const sha256 = await sha256Of(createReadStream(path));
    const mime = OUTPUT_MIME[outputExtOf(kind, params)];
    await this.files.upload(filename, path, { contentType: mime, cacheControl: OUTPUT_CACHE_CONTROL });
    return this.counted({
      filename,
      mime,
      bytes: st.size,
      sha256,
      width: size.width,
      height: size.height,
      written_at: this.now(),
    });
  }

  /**
   * A job's output made of another ready output's bytes (the render cache): a copy under the job's own name, so each
   * lives and expires by its own record. The job's record must be stored (pending) before: the budget this may run
   * then holds the copy as the output of a rendering job.
   */
  async addCopy(id: string, kind: JobKind, params: FormatParams | undefined, of: JobOutput): Promise<JobOutput> {
    // the name a pending record of the job holds (the codec or still format is part of the cache key, so the
    // extension is the copied output's)
    const filename = OutputStore.nameOf(id, kind, params);
    await this.files.copy(of.filename, filename);
    return this.counted({ ...of, filename, written_at: this.now() });
  }

  private async counted(output: JobOutput): Promise<JobOutput> {
    this.bytes = this.sharedCount ? await this.sharedCount.addOutputBytes(output.bytes) : this.bytes + output.bytes;
    if (this.maxBytes !== undefined && this.bytes > this.maxBytes)
      await this.enforceBudget().catch((e) => this.log.warn({ err: e }, 'disk budget enforcement failed'));
    return output;
  }

  /** Deletes what a failed or cut render left: its output and its partial files (the GIF's frames and palette too). */
  async discard(id: string, kind: JobKind, params?: FormatParams): Promise<void> {
    const name = OutputStore.nameOf(id, kind, params);
    // the scratch first: it is local, so it goes even when the store cannot be reached
    await this.files.dropScratch(name);
    try {
      await Promise.all(PARTIAL_SUFFIXES.map((s) => this.files.remove(`${name}${s}`)));
      // a long video's chunk segments (the renderer removes them itself unless it was killed)
      const segments = (await this.names()).filter((n) => n.startsWith(`${name}.`) && ownerOf(n) === name);
      await Promise.all(segments.map((n) => this.files.remove(n)));
      await this.files.remove(name);
    } catch (err) {
      // an output that was never uploaded is not in the store; one that was goes with retention's stray sweep
      this.log.warn({ err, job_id: id, event: 'discard_failed' }, "could not remove a failed job's output");
    }
  }

  /**
   * At start, before any render: every partial file in the directory was left by a render the service no longer
   * runs (a crash, a kill), so each goes, whatever its job.
   */
  async removePartials(): Promise<number> {
    let n = 0;
    for (const name of await this.names()) {
      if (!isPartial(name)) continue;
      await this.files.remove(name);
      n++;
    }
    if (n) this.log.info({ files: n, event: 'partials_removed' }, 'partial output files of an earlier run removed');
    return n;
  }

  /** Deletes an expired output. */
  async remove(output: JobOutput): Promise<void> {
    await this.files.remove(output.filename);
    this.bytes = Math.max(0, this.bytes - output.bytes);
    if (this.sharedCount) this.bytes = Math.max(0, await this.sharedCount.addOutputBytes(-output.bytes));
  }

  /** Reads the count every process shares (with REDIS_URL), so refusal() answers for all of them; else nothing. */
  async refreshCount(): Promise<void> {
    if (this.sharedCount) this.bytes = Math.max(0, await this.sharedCount.outputBytes());
  }

  /** Deletes every entry no job holds that was last modified before `cutoff` (left by a crash or a killed render). */
  async removeStrays(held: ReadonlySet<string>, cutoff: number): Promise<void> {
    for (const name of await this.names()) {
      if (held.has(name) || held.has(ownerOf(name))) continue;
      const st = await this.files.stat(name);
      if (st && st.mtimeMs <= cutoff) await this.files.remove(name);
    }
  }

  /**
   * The file behind a public output name, only when the name is exactly the output of a ready job and resolves
   * inside the store: nothing else in DATA_DIR (the journal, assets, partial files) can be reached through it.
   */
  async lookup(filename: string): Promise<StoredOutput | undefined> {
    // a plain name of the store's root (the pattern has no "/"; a leading dot would be ".." or a hidden file)
    if (!OUTPUT_FILENAME_RE.test(filename) || filename.startsWith('.')) return undefined;
    const dot = filename.indexOf('.');
    if (dot < 0) return undefined;
    const rec = await this.records.get(filename.slice(0, dot));
    if (!rec || rec.status !== 'ready' || rec.output?.filename !== filename) return undefined;
    const st = await this.files.stat(filename);
    if (!st?.isFile) return undefined;
    return { size: st.bytes, output: rec.output, ...(rec.owner ? { owner: rec.owner } : {}) };
  }

  /** The bytes of a stored output (a byte range of them, both ends inclusive). */
  read(filename: string, range?: { start: number; end: number }): Promise<Readable> {
    return this.files.get(filename, range);
  }

  /**
   * A URL of the output's bytes straight from the storage (a presigned bucket URL) valid as long as the output is
   * kept, or undefined where the storage has none (a directory).
   */
  async publicUrl(output: JobOutput): Promise<string | undefined> {
    if (!this.presign) return undefined;
    const left = output.written_at + (this.retentionMs ?? 24 * 3600_000) - this.now();
    // +1: the signature's own time is whole seconds, floored; the URL must not end before the output does
    const seconds = Math.min(PRESIGN_MAX_SECONDS, Math.max(1, Math.ceil(left / 1000) + 1));
    return this.presign(output.filename, seconds);
  }

  /** Bytes stored now and the budget (OUTPUT_MAX_BYTES; undefined: no cap), for the metrics. */
  usage(): { bytes: number; budgetBytes: number | undefined } {
    return { bytes: this.bytes, budgetBytes: this.maxBytes };
  }

  /** The output budget (OUTPUT_MAX_BYTES) and what of it is not held by a stored output; undefined: no budget. */
  budget(): { max: number; left: number } | undefined {
    const max = this.maxBytes;
    return max === undefined ? undefined : { max, left: Math.max(0, max - this.bytes) };
  }

  /** The storage_full refusal while the outputs fill the budget, else null. */
  refusal(): Refusal | null {
    const budget = this.maxBytes;
    return budget !== undefined && this.bytes >= budget ? storageFull(this.bytes, budget) : null;
  }

  /**
   * Recounts the directory and, over the budget, deletes the oldest outputs that no job younger than 24 hours holds;
   * their jobs expire with them. `room`: a render in progress that needs `bytes` of the budget; its own files in the
   * directory (its output name and partial files beside it) are counted in `bytes`, not twice.
   */
  async enforceBudget(room?: { bytes: number; filename: string }): Promise<void> {
    const reserve = room?.bytes ?? 0;
    const files: OutputFile[] = [];
    for (const name of await this.names()) {
      if (room && ownerOf(name) === room.filename) continue;
      const st = await this.files.stat(name);
      if (st?.isFile) files.push({ name, bytes: st.bytes, mtimeMs: st.mtimeMs });
    }
    const budget = this.maxBytes;
    const total = files.reduce((n, f) => n + f.bytes, 0);
    if (budget === undefined || total + reserve <= budget) {
      this.bytes = total;
      await this.sharedCount?.setOutputBytes(total);
      return;
    }
    const refs: OutputRef[] = [];
    for (const rec of await this.records.list()) {
      if (rec.status === 'ready' && rec.output)
        refs.push({ filename: rec.output.filename, job_id: rec.job_id, at: rec.output.written_at });
      else if (rec.status === 'pending')
        refs.push({
          filename: OutputStore.nameOf(rec.job_id, rec.kind, rec.params),
          job_id: rec.job_id,
          at: rec.created_at,
          rendering: true,
        });
    }
    const plan = planEviction(files, refs, Math.max(0, budget - reserve), this.now());
    for (const name of plan.evict) await this.files.remove(name);
    for (const id of plan.jobs) {
      await this.records.remove(id);
      this.log.info({ job_id: id, event: 'job_evicted' }, 'output evicted by the disk budget');
    }
    this.bytes = plan.after;
    await this.sharedCount?.setOutputBytes(plan.after);
    if (plan.after > budget)
      this.log.warn(
        { bytes: plan.after, budget, event: 'storage_full' },
        `outputs over budget and all held by jobs younger than ${describeDuration(PROTECT_MS)}: new jobs are refused`,
      );
  }

  private names(): Promise<string[]> {
    return this.files.list();
  }
}

function sha256Of(stream: Readable): Promise<string> {
  return new Promise((resolve, reject) => {
    const h = createHash('sha256');
    stream
      .on('data', (d) => h.update(d))
      .on('end', () => resolve(h.digest('hex')))
      .on('error', reject);
  });
}
