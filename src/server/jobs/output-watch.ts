// A rendering item's bytes against the output budget (OUTPUT_MAX_BYTES, issue 32 row 5). Admission estimates an
// output's bytes, but an estimate can be wrong (a scene of many small shapes is as detailed as noise and looks
// flat to it), so while an item renders its files are measured: the partial output (or the chunk's segment) and the
// partial files beside it, plus the segments earlier chunks of the same job stored. Past what the budget has left
// the render stops and the job ends `storage_full`; a finished output over it is never stored (overBudget()), so one
// job cannot leave the service refusing every other until its output expires.
import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { JobFailure, PARTIAL_SUFFIXES } from '../../render/renderer-port.js';
import { CODE } from '../../contract/error-codes.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';

/** The job's end when its files pass the budget. */
export class OverBudget extends JobFailure {
  constructor(bytes: number, left: number, max: number) {
    super(
      `render stopped: its files reached ${bytes} bytes, over the ${left} bytes the output budget (OUTPUT_MAX_BYTES, ${max}) had left`,
      CODE.storage_full,
    );
  }
}

/** Bytes of a local file, 0 when it is not there (yet, or any more). */
async function sizeOf(path: string): Promise<number> {
  return (await stat(path).catch(() => undefined))?.size ?? 0;
}

/** What a job's segments stored so far weigh (a chunked video's earlier chunks). */
export async function storedSegmentBytes(segments: Storage, jobId: string): Promise<number> {
  let bytes = 0;
  for (const key of await segments.list(jobId).catch(() => []))
    bytes += (await segments.stat(key).catch(() => undefined))?.bytes ?? 0;
  return bytes;
}

export class OutputWatch {
  constructor(
    private readonly outputs: Pick<OutputStore, 'budget' | 'enforceBudget'>,
    /** the local file the renderer writes (its partial files sit beside it) */
    private readonly outPath: string,
    /** bytes the job holds already elsewhere (stored segments of its earlier chunks) */
    private readonly earlier: number,
  ) {}

  /** The bytes the item holds now: its output or segment, finished or partial, and the job's earlier segments. */
  async bytes(): Promise<number> {
    const sizes = await Promise.all([this.outPath, ...PARTIAL_SUFFIXES.map((s) => `${this.outPath}${s}`)].map(sizeOf));
    return this.earlier + sizes.reduce((a, b) => a + b, 0);
  }

  /**
   * The failure when the item's bytes pass what the budget has left (outputs already stored are counted there).
   * Before failing, outputs no job younger than 24 h holds go to make room, as they would the moment this output
   * were stored: only bytes held by young jobs can refuse a render.
   */
  async overBudget(): Promise<OverBudget | null> {
    const budget = this.outputs.budget();
    if (!budget) return null;
    const bytes = await this.bytes();
    if (bytes <= budget.left) return null;
    this.room ??= this.outputs
      .enforceBudget({ bytes, filename: basename(this.outPath) })
      .finally(() => (this.room = undefined));
    await this.room;
    const after = this.outputs.budget() ?? budget;
    return bytes > after.left ? new OverBudget(bytes, after.left, after.max) : null;
  }

  /** an eviction in progress for this item (progress checks overlap; one at a time) */
  private room: Promise<void> | undefined;
}
