// How an item of work ends, for the item runner (run-item.ts) and the join of a chunked video (join-item.ts) alike:
// ready (the output stored, the render cache filled, the record ended ready), failed (the record ended in error, a
// chunked video's segments removed, the metrics told) or stopped. Each ending is written once here, so a chunk, a
// whole job and a join cannot end a job in different ways. The record itself is ended by its owner (job-records.ts):
// the first end of a record wins, so a cancel from any process and a finish here never both win.
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { CODE } from '../../contract/error-codes.js';
import type { RenderOutcome } from '../../render/renderer-port.js';
import type { JobKind } from '../../contract/job-kind.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';
import type { JobRecord } from './store/port.js';
import type { ItemOutcome } from './queue/port.js';
import type { PartName } from './work-items.js';
import type { RenderCache } from './render-cache.js';
import { endOf, readyFields, type JobEnd } from './job-failure.js';
import type { JobRecords } from './job-records.js';

/** How an item ended here, for the metrics: kept, the job ended in error, stopped (its job had ended), handed back. */
export type PartStatus = 'ready' | 'error' | 'stopped' | 'handed_back';

/**
 * What running items tells (the job service re-emits it; webhooks and metrics listen):
 * - `started` (record): a job's first item began (it left the line);
 * - `ended` (record): this process ended a job (ready or error);
 * - `part`: an item done, with the frames it drew into what is kept and where its time went (`<stage>_ms`).
 */
export interface ItemEvents {
  started: [rec: JobRecord];
  ended: [rec: JobRecord];
  part: [e: { kind: JobKind; part: PartName; status: PartStatus; frames: number; timings: Record<string, unknown> }];
}

export interface ItemEndsOptions {
  records: JobRecords;
  outputs: OutputStore;
  /** chunk segments, `<job>/<index>.ts` (removed whole when a chunked video ends) */
  segments: Storage;
  cache?: RenderCache;
  events: EventEmitter<ItemEvents>;
  log: Logger;
}

export class ItemEnds {
  constructor(private readonly o: ItemEndsOptions) {}

  /** Tells the metrics how an item ended. */
  tell(rec: JobRecord, part: PartName, status: PartStatus, frames = 0, timings: Record<string, unknown> = {}): void {
    this.o.events.emit('part', { kind: rec.kind, part, status, frames, timings });
  }

  /**
   * An item stopped because its job ended while it ran (a cancel, from any process), whether a progress report or
   * its own end noticed: logged as such (`render_stopped`, `part` as `label` says it), the metrics told.
   */
  stopped(rec: JobRecord, part: PartName, label: string = part): void {
    this.o.log.info(
      { job_id: rec.job_id, part: label, event: 'render_stopped' },
      'job ended meanwhile: render stopped',
    );
    this.tell(rec, part, 'stopped');
  }

  /**
   * The one way an item fails: the job ends in error with `end` (unless something ended it first), the metrics are
   * told, and a chunked video's segments go (a chunk or the join failed: the siblings' work is of no use).
   */
  async fail(rec: JobRecord, part: PartName, end: JobEnd): Promise<ItemOutcome> {
    await this.end(rec.job_id, end);
    this.tell(rec, part, 'error');
    if (part !== 'whole') await this.cleanSegments(rec.job_id);
    return { status: 'error', message: end.message };
  }

  /** A job whose queue entry failed for good (stalled too often, ...): its record ends in error, never stays pending. */
  async failed(id: string, message: string): Promise<void> {
    if (await this.end(id, endOf(CODE.job_lost, `render failed: ${message}`))) await this.cleanSegments(id);
  }

  /** Stores the output and ends the job ready; false when the job had ended meanwhile (the output is removed). */
  async ready(
    rec: JobRecord,
    outcome: Pick<RenderOutcome, 'width' | 'height' | 'runner' | 'frames'>,
    timings: Record<string, number>,
  ): Promise<boolean> {
    const output = await this.o.outputs.add(rec.job_id, rec.kind, outcome, rec.params);
    // the cache entry first, so a client that sees the job ready and posts it again is answered from the cache (an
    // entry serves only while its job is ready: one whose job is cancelled meanwhile is never used)
    const fresh = await this.o.records.ready(
      rec.job_id,
      (cur) => readyFields(cur, output, outcome.runner, timings),
      async (ready) => {
        await this.o.cache?.remember(ready);
      },
    );
    if (!fresh) {
      // cancelled meanwhile: the client was told so, the file goes (and its bytes leave the budget)
      await this.o.outputs.remove(output);
      return false;
    }
    this.o.events.emit('ended', fresh);
    this.o.log.info(
      {
        job_id: rec.job_id,
        kind: rec.kind,
        status: 'ready',
        event: 'job_ready',
        ...fresh.timings,
        width: outcome.width,
        height: outcome.height,
        frames: outcome.frames,
        bytes: output.bytes,
      },
      'job ready',
    );
    return true;
  }

  /** A chunked video's segments, all of them (its chunks and join need them no more). */
  async cleanSegments(id: string): Promise<void> {
    // a bucket that is down keeps them: they go with the start-up sweep of a later process
    await this.o.segments.remove(id).catch((err) => this.o.log.warn({ err, job_id: id }, 'segments not removed'));
  }

  /** Ends a job in error (the first end of a record wins: a job already ended is left as it is). */
  private async end(id: string, why: JobEnd): Promise<JobRecord | undefined> {
    const rec = await this.o.records.fail(id, why);
    if (rec) this.o.events.emit('ended', rec);
    return rec;
  }
}
