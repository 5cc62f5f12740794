// The output store (DATA_DIR/outputs): the one place that knows an output's file name (`<job_id>.<ext>`), measures
// its size and SHA-256 once a render has written it, hands a file back only to the ready job that owns it, and keeps
// the directory within OUTPUT_MAX_BYTES (disk-budget.ts decides what goes; the jobs of evicted outputs expire with
// them).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { dirname, join, resolve, sep } from 'node:path';
import type { Logger } from 'pino';
import { KIND_EXT, OUTPUT_MIME } from '../../contract/mime.js';
import { OUTPUT_FILENAME_RE } from '../../contract/limits.js';
import type { JobKind } from '../schemas.js';
import type { JobOutput, JobStore } from '../jobs/store.js';
import { storageFull, type Refusal } from '../durability/admission.js';
import { planEviction, type OutputFile, type OutputRef } from './disk-budget.js';
import { PARTIAL_SUFFIXES } from '../../render/types.js';
import { isPartial, ownerOf } from './partial-files.js';
import { DiskStorage } from '../storage/storage.js';

export interface OutputStoreOptions {
  dir: string;
  /** the job records: which outputs are held, and the records that expire with an evicted output */
  store: JobStore;
  /** disk budget of the directory in bytes (default: no cap) */
  maxBytes?: number;
  log: Logger;
  now: () => number;
}

/** A ready job's output file, found by its public name. */
export interface StoredOutput {
  path: string;
  size: number;
  output: JobOutput;
}

export class OutputStore {
  readonly dir: string;
  /** bytes in the directory, kept up to date as outputs come and go (a recount at every budget check) */
  private bytes = 0;

  /** the files (DATA_DIR/outputs, shared by every process with REDIS_URL) */
  private readonly files: DiskStorage;

  constructor(private readonly o: OutputStoreOptions) {
    this.dir = resolve(o.dir);
    this.files = new DiskStorage(this.dir);
  }

  async init(): Promise<void> {
    await this.files.init();
  }

  /** The name of a job's output, written or still to be written. */
  static nameOf(id: string, kind: JobKind): string {
    return `${id}.${KIND_EXT[kind]}`;
  }

  /** Where the renderer writes a job's output. */
  pathOf(id: string, kind: JobKind): string {
    return join(this.dir, OutputStore.nameOf(id, kind));
  }

  /**
   * Measures the output a render has just written and counts it against the budget. Over the budget, older outputs
   * go before this one is announced (its job is still pending, so it is never the one evicted).
   */
  async add(id: string, kind: JobKind, size: { width: number; height: number }): Promise<JobOutput> {
    const filename = OutputStore.nameOf(id, kind);
    const path = join(this.dir, filename);
    const st = await this.files.stat(filename);
    if (!st) throw new Error(`the render left no output at ${path}`);
    const sha256 = await sha256Of(this.files.get(filename));
    const output: JobOutput = {
      filename,
      mime: OUTPUT_MIME[KIND_EXT[kind]],
      bytes: st.bytes,
      sha256,
      width: size.width,
      height: size.height,
      written_at: this.o.now(),
    };
    this.bytes += st.bytes;
    if (this.o.maxBytes !== undefined && this.bytes > this.o.maxBytes)
      await this.enforceBudget().catch((e) => this.o.log.warn({ err: e }, 'disk budget enforcement failed'));
    return output;
  }

  /** Deletes what a failed or cut render left: its output and its partial files (the GIF's frames and palette too). */
  async discard(id: string, kind: JobKind): Promise<void> {
    const name = OutputStore.nameOf(id, kind);
    await Promise.all(PARTIAL_SUFFIXES.map((s) => this.files.remove(`${name}${s}`)));
    // a long video's chunk segments (the renderer removes them itself unless it was killed)
    const segments = (await this.names()).filter((n) => n.startsWith(`${name}.`) && ownerOf(n) === name);
    await Promise.all(segments.map((n) => this.files.remove(n)));
    await this.files.remove(name);
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
    if (n) this.o.log.info({ files: n, event: 'partials_removed' }, 'partial output files of an earlier run removed');
    return n;
  }

  /** Deletes an expired output. */
  async remove(output: JobOutput): Promise<void> {
    await this.files.remove(output.filename);
    this.bytes = Math.max(0, this.bytes - output.bytes);
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
    if (!OUTPUT_FILENAME_RE.test(filename) || filename.startsWith('.')) return undefined;
    const path = resolve(this.dir, filename);
    if (dirname(path) !== this.dir || !path.startsWith(this.dir + sep)) return undefined;
    const dot = filename.indexOf('.');
    if (dot < 0) return undefined;
    const rec = await this.o.store.get(filename.slice(0, dot));
    if (!rec || rec.status !== 'ready' || rec.output?.filename !== filename) return undefined;
    const st = await this.files.stat(filename);
    if (!st?.isFile) return undefined;
    return { path, size: st.bytes, output: rec.output };
  }

  /** The bytes of a stored output (a byte range of them, both ends inclusive). */
  read(filename: string, range?: { start: number; end: number }): Readable {
    return this.files.get(filename, range);
  }

  /** Bytes stored now and the budget (OUTPUT_MAX_BYTES; undefined: no cap), for the metrics. */
  usage(): { bytes: number; budgetBytes: number | undefined } {
    return { bytes: this.bytes, budgetBytes: this.o.maxBytes };
  }

  /** The storage_full refusal while the outputs fill the budget, else null. */
  refusal(): Refusal | null {
    const budget = this.o.maxBytes;
    return budget !== undefined && this.bytes >= budget ? storageFull(this.bytes, budget) : null;
  }

  /**
   * Recounts the directory and, over the budget, deletes the oldest outputs that no job younger than 24 hours holds;
   * their jobs expire with them.
   */
  async enforceBudget(): Promise<void> {
    const files: OutputFile[] = [];
    for (const name of await this.names()) {
      const st = await this.files.stat(name);
      if (st?.isFile) files.push({ name, bytes: st.bytes, mtimeMs: st.mtimeMs });
    }
    const budget = this.o.maxBytes;
    const total = files.reduce((n, f) => n + f.bytes, 0);
    if (budget === undefined || total <= budget) {
      this.bytes = total;
      return;
    }
    const refs: OutputRef[] = [];
    for (const rec of await this.o.store.list()) {
      if (rec.status === 'ready' && rec.output)
        refs.push({ filename: rec.output.filename, job_id: rec.job_id, at: rec.output.written_at });
      else if (rec.status === 'pending')
        refs.push({
          filename: OutputStore.nameOf(rec.job_id, rec.kind),
          job_id: rec.job_id,
          at: rec.created_at,
          rendering: true,
        });
    }
    const plan = planEviction(files, refs, budget, this.o.now());
    for (const name of plan.evict) await this.files.remove(name);
    for (const id of plan.jobs) {
      await this.o.store.delete(id);
      this.o.log.info({ job_id: id, event: 'job_evicted' }, 'output evicted by the disk budget');
    }
    this.bytes = plan.after;
    if (plan.after > budget)
      this.o.log.warn(
        { bytes: plan.after, budget, event: 'storage_full' },
        'outputs over budget and all held by jobs younger than 24 h: new jobs are refused',
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
