// One function runs one item of work, whichever queue handed it out (jobs/queue/local.ts, jobs/queue/bullmq.ts): a
// job in one piece, a chunk of a video, or the join of its chunks (join-item.ts). Record, the assets' local copies,
// render under the job's one deadline (JOB_TIMEOUT_MS from the job's start, over all its chunks), then the finish:
// the output stored and the record ended ready, or the record ended in error, each the one way item-ends.ts writes.
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { deadline } from '../../contract/deadline.js';
import { CODE } from '../../contract/error-codes.js';
import { JobFailure, type Renderer, type RenderOutcome } from '../../render/renderer-port.js';
import type { JoinSegments } from '../../render/renderer-port.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { HeldFiles } from '../storage/asset-copies.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';
import type { JobRecord, LifecycleStore } from './store/port.js';
import { JobRecords } from './job-records.js';
import type { ItemHandle, ItemOutcome } from './queue/port.js';
import { segmentKey, type ChunkResult, type WorkItem } from './work-items.js';
import { failureOf, stageTimings } from './job-failure.js';
import { settleWithin } from '../../contract/settle-within.js';
import type { RenderCache } from './render-cache.js';
import { OutputWatch, OverBudget, storedSegmentBytes } from './output-watch.js';
import { ItemEnds, type ItemEvents, type PartStatus } from './item-ends.js';
import { joinChunks } from './join-item.js';

export type { ItemEvents, PartStatus };

export interface ItemRunnerOptions {
  store: LifecycleStore;
  renderer: Renderer;
  joinSegments: JoinSegments;
  assets: AssetStore;
  outputs: OutputStore;
  /** chunk segments, `<job>/<index>.ts` (removed whole after the join) */
  segments: Storage;
  cache?: RenderCache;
  jobTimeoutMs: number;
  /** a local scratch directory for one item (a join's segments; gone when the item ends) */
  scratch: (name: string) => string;
  events: EventEmitter<ItemEvents>;
  log: Logger;
  now: () => number;
}

/**
 * How often a rendering item reports its progress and holds its files against the output budget. It never reads its
 * record: a cancel, from any process, reaches it through its handle's signal (the queue's withdraw).
 */
const PROGRESS_EVERY_MS = 250;
/** How long a stopped render may take to release its page and encoder before the next item starts. */
const STOP_SETTLE_MS = 5_000;

export class ItemRunner {
  private readonly ends: ItemEnds;
  private readonly records: JobRecords;

  constructor(private readonly o: ItemRunnerOptions) {
    this.records = new JobRecords(o.store, o.now);
    this.ends = new ItemEnds({ ...o, records: this.records });
  }

  readonly run = async (item: WorkItem, h: ItemHandle): Promise<ItemOutcome> => {
    const rec = await this.records.get(item.id);
    // the first item of a job starts it: it leaves the line, and its time limit runs from now. A start the store
    // refuses (the job was cancelled between our read and the start) renders nothing, whatever rec still says
    let refused = false;
    if (rec?.status === 'pending' && rec.started_at === undefined) {
      if (await this.records.start(rec)) this.started(rec);
      else refused = true;
    }
    if (!rec || refused || rec.status !== 'pending' || rec.started_at === undefined) {
      if (rec) this.ends.tell(rec, item.part, 'stopped');
      this.o.log.info({ job_id: item.id, part: item.part, event: 'render_skipped' }, 'job ended: nothing to render');
      // a cancelled or failed chunked video: what its finished chunks left goes with it
      if (item.part !== 'whole') await this.ends.cleanSegments(item.id);
      return { status: 'stopped' };
    }
    if (item.part === 'join') return joinChunks({ ...this.o, ends: this.ends }, item, rec, h);
    return this.render(item, rec, h);
  };

  private started(rec: JobRecord): void {
    this.o.log.info(
      {
        job_id: rec.job_id,
        kind: rec.kind,
        status: 'rendering',
        event: 'job_started',
        queue_wait_ms: rec.started_at! - rec.created_at,
      },
      'job started',
    );
    this.o.events.emit('started', rec);
  }

  private async render(
    item: Extract<WorkItem, { part: 'whole' | 'chunk' }>,
    rec: JobRecord,
    h: ItemHandle,
  ): Promise<ItemOutcome> {
    const id = rec.job_id;
    const chunk = item.part === 'chunk' ? item : undefined;
    const part = chunk ? String(chunk.index) : 'whole';
    const ctl = new AbortController();
    // JOB_TIMEOUT_MS is the job's, not each chunk's: what is left of it since the job started
    const limit = deadline(ctl, rec.started_at! + this.o.jobTimeoutMs - this.o.now());
    const stopped = () => (limit.timedOut ? undefined : h.stopReason());
    const stop = () => ctl.abort(new Error('stopped'));
    if (h.signal.aborted) stop();
    else h.signal.addEventListener('abort', stop, { once: true });
    // the time limit and a stop end the item even when the renderer ignores the abort
    const aborted = new Promise<never>((_, reject) => {
      const fail = () => reject(new JobFailure('stopped', CODE.interrupted));
      if (ctl.signal.aborted) fail();
      else ctl.signal.addEventListener('abort', fail, { once: true });
    });
    aborted.catch(() => {});
    let last = 0;
    let watch: OutputWatch | undefined;
    /** set when the item's files passed the output budget: the job ends storage_full */
    let full: OverBudget | null = null;
    const onProgress = (p: number, f?: { done: number; total: number }) => {
      const t = performance.now();
      if (t - last < PROGRESS_EVERY_MS) return;
      last = t;
      h.report(p, f?.done ?? 0);
      void watch?.overBudget().then((over) => {
        if (over && !ctl.signal.aborted) {
          full = over;
          ctl.abort(over);
        }
      });
    };
    let rendering: Promise<RenderOutcome> | undefined;
    let held: HeldFiles | undefined;
    const t0 = performance.now();
    this.o.log.info({ job_id: id, part, event: 'render_started' }, 'rendering');
    try {
      // the copies admission's estimate read, where they are still kept: an asset comes down once per job
      held = await this.o.assets.localFiles(rec.assets);
      const outPath = chunk
        ? await this.o.segments.scratchPath(segmentKey(id, chunk.index))
        : await this.o.outputs.scratchPath(id, rec.kind, rec.params);
      // the budget as every process has filled it, and what the job's earlier chunks hold of it
      await this.o.outputs.refreshCount();
      watch = new OutputWatch(this.o.outputs, outPath, chunk ? await storedSegmentBytes(this.o.segments, id) : 0);
      h.report(0, 0);
      rendering = this.o.renderer.render(
        {
          id,
          kind: rec.kind,
          source: rec.source,
          params: rec.params,
          ...(rec.args ? { args: rec.args } : {}),
          assets: held.files,
          outPath,
          ...(chunk ? { frames: { from: chunk.from, to: chunk.to } } : {}),
          ...(rec.prepared ? { prepared: rec.prepared } : {}),
        },
        { signal: ctl.signal, onProgress },
      );
      const outcome = await Promise.race([rendering, aborted]);
      // the finished file is measured too: a render faster than the progress checks must not pass the budget
      full = await watch.overBudget();
      if (full) throw full;
      if (chunk) {
        await this.o.segments.upload(segmentKey(id, chunk.index), outPath);
        // ended (cancelled) while this chunk rendered: its segment and its siblings' go now; a sibling still
        // rendering cleans up the same way when it ends
        if ((await this.records.get(id))?.status !== 'pending') {
          await this.ends.cleanSegments(id);
          this.ends.stopped(rec, 'chunk', part);
          return { status: 'stopped' };
        }
        const frames = chunk.to - chunk.from;
        h.report(1, frames);
        this.o.log.info(
          { job_id: id, chunk: chunk.index, frames, ms: Math.round(performance.now() - t0), event: 'chunk_done' },
          'chunk rendered',
        );
        this.ends.tell(rec, 'chunk', 'ready', frames, { ...outcome.timings });
        return { status: 'ready', result: chunkResult(outcome, performance.now() - t0) };
      }
      const kept = await this.ends.ready(rec, outcome, stageTimings(outcome));
      if (kept) this.ends.tell(rec, 'whole', 'ready', outcome.frames, { ...outcome.timings });
      else this.ends.stopped(rec, 'whole');
      return kept ? { status: 'ready' } : { status: 'stopped' };
    } catch (err) {
      const why = stopped();
      // a stopped render releases its page and kills its ffmpeg before the next item starts, and before a cancel is
      // answered (no partial file may be left behind it); a job past its limit is answered first; a process that
      // closes does not wait
      if ((why === 'ended' || why === 'hand_back' || full) && rendering) await settleWithin(rendering, STOP_SETTLE_MS);
      await this.dropPartial(rec, chunk);
      if (why === 'hand_back') {
        this.ends.tell(rec, item.part, 'handed_back');
        this.o.log.info({ job_id: id, part, event: 'render_handed_back' }, 'shutdown: handed back');
        return { status: 'handed_back' };
      }
      if (why === 'ended') {
        if (chunk) await this.ends.cleanSegments(id);
        this.ends.stopped(rec, item.part, part);
        return { status: 'stopped' };
      }
      const end = failureOf(full ?? err, {
        timedOut: limit.timedOut && !full,
        aborted: why === 'interrupt',
        limitMs: this.o.jobTimeoutMs,
      });
      const level = err instanceof JobFailure && !limit.timedOut ? 'info' : 'warn';
      this.o.log[level](
        {
          job_id: id,
          kind: rec.kind,
          part,
          status: 'error',
          event: 'job_error',
          code: end.code,
          message: end.message,
          ...(err instanceof JobFailure ? {} : { err }),
        },
        'job error',
      );
      const failed = await this.ends.fail(rec, item.part, end);
      if (limit.timedOut && rendering) {
        await settleWithin(rendering, STOP_SETTLE_MS);
        await this.dropPartial(rec, chunk);
      }
      return failed;
    } finally {
      limit.clear();
      h.signal.removeEventListener('abort', stop);
      held?.release();
    }
  }

  private async dropPartial(rec: JobRecord, chunk?: { index: number }): Promise<void> {
    if (chunk) await this.o.segments.dropScratch(segmentKey(rec.job_id, chunk.index));
    else await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
  }

  /** A job whose queue entry failed for good (stalled too often, ...): its record ends in error, never stays pending. */
  failed(id: string, message: string): Promise<void> {
    return this.ends.failed(id, message);
  }
}

function chunkResult(o: RenderOutcome, ms: number): ChunkResult {
  return { width: o.width, height: o.height, runner: o.runner, frames: o.frames, ms, timings: stageTimings(o) };
}
