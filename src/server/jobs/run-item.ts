// One function runs one item of work, whichever queue handed it out (jobs/queue/local.ts, jobs/queue/bullmq.ts): a
// job in one piece, a chunk of a video, or the join of its chunks. Record, assets down to scratch, render under the
// job's one deadline (JOB_TIMEOUT_MS from the job's start, over all its chunks), then the finish: the output stored and
// the record ended ready, or the record ended in error. Every end is the store's atomic one (the first end wins), so a
// cancel from any process and a finish here never both win.
import { rm } from 'node:fs/promises';
import type { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import { deadline } from '../../contract/deadline.js';
import { CODE } from '../../contract/error-codes.js';
import { chunkRanges } from '../../contract/chunks.js';
import { JobFailure, VIDEO_INCOMPLETE, type Renderer, type RenderOutcome } from '../../render/renderer-port.js';
import type { JoinSegments } from '../../render/segment-join.js';
import type { JobKind } from '../http/schemas/jobs.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import { StorageUnavailable, type Storage } from '../storage/storage.js';
import type { JobRecord, LifecycleStore } from './store/port.js';
import type { ItemHandle, ItemOutcome } from './queue/port.js';
import { segmentKey, type ChunkResult, type PartName, type WorkItem } from './work-items.js';
import { endOf, failureOf, readyFields, stageTimings, type JobEnd } from './job-failure.js';
import { endJob } from './end-job.js';
import { settleWithin } from './settle.js';
import type { RenderCache } from './render-cache.js';
import { OutputWatch, OverBudget, storedSegmentBytes } from './output-watch.js';

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
  /** a local scratch directory for one item (its inputs; gone when the item ends) */
  scratch: (name: string) => string;
  events: EventEmitter<ItemEvents>;
  log: Logger;
  now: () => number;
}

/** How often a rendering item reports its progress and looks whether its record was ended meanwhile (a cancel). */
const PROGRESS_EVERY_MS = 250;
/** How long a stopped render may take to release its page and encoder before the next item starts. */
const STOP_SETTLE_MS = 5_000;

export class ItemRunner {
  constructor(private readonly o: ItemRunnerOptions) {}

  readonly run = async (item: WorkItem, h: ItemHandle): Promise<ItemOutcome> => {
    const rec = await this.o.store.get(item.id);
    // the first item of a job starts it: it leaves the line, and its time limit runs from now. A start the store
    // refuses (the job was cancelled between our read and the start) renders nothing, whatever rec still says
    let refused = false;
    if (rec?.status === 'pending' && rec.started_at === undefined) {
      if (await this.o.store.markStarted(rec, this.o.now())) this.started(rec);
      else refused = true;
    }
    if (!rec || refused || rec.status !== 'pending' || rec.started_at === undefined) {
      if (rec) this.tell(rec, item.part, 'stopped');
      this.o.log.info({ job_id: item.id, part: item.part, event: 'render_skipped' }, 'job ended: nothing to render');
      // a cancelled or failed chunked video: what its finished chunks left goes with it
      if (item.part !== 'whole') await this.cleanSegments(item.id);
      return { status: 'stopped' };
    }
    if (item.part === 'join') return this.join(item, rec, h);
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

  private tell(rec: JobRecord, part: PartName, status: PartStatus, frames = 0, timings: Record<string, unknown> = {}) {
    this.o.events.emit('part', { kind: rec.kind, part, status, frames, timings });
  }

  private async render(
    item: Extract<WorkItem, { part: 'whole' | 'chunk' }>,
    rec: JobRecord,
    h: ItemHandle,
  ): Promise<ItemOutcome> {
    const id = rec.job_id;
    const chunk = item.part === 'chunk' ? item : undefined;
    const part = chunk ? String(chunk.index) : 'whole';
    const scratch = this.o.scratch(`${id}-${part}`);
    const ctl = new AbortController();
    // JOB_TIMEOUT_MS is the job's, not each chunk's: what is left of it since the job started
    const limit = deadline(ctl, rec.started_at! + this.o.jobTimeoutMs - this.o.now());
    let ended = false;
    const stopped = () => (limit.timedOut ? undefined : ended ? 'ended' : h.stopReason());
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
      // a cancel from another process: the record says so
      void this.o.store.get(id).then((r) => {
        if (r?.status !== 'pending' && !ctl.signal.aborted) {
          ended = true;
          ctl.abort(new Error('ended'));
        }
      });
    };
    let rendering: Promise<RenderOutcome> | undefined;
    const t0 = performance.now();
    this.o.log.info({ job_id: id, part, event: 'render_started' }, 'rendering');
    try {
      const files = await this.o.assets.localFiles(rec.assets, scratch);
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
          assets: files,
          outPath,
          ...(chunk ? { frames: { from: chunk.from, to: chunk.to } } : {}),
          ...(!chunk && rec.frames !== undefined ? { plannedFrames: rec.frames } : {}),
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
        if ((await this.o.store.get(id))?.status !== 'pending') {
          await this.cleanSegments(id);
          this.tell(rec, 'chunk', 'stopped');
          return { status: 'stopped' };
        }
        const frames = chunk.to - chunk.from;
        h.report(1, frames);
        this.o.log.info(
          { job_id: id, chunk: chunk.index, frames, ms: Math.round(performance.now() - t0), event: 'chunk_done' },
          'chunk rendered',
        );
        this.tell(rec, 'chunk', 'ready', frames, { ...outcome.timings });
        return { status: 'ready', result: chunkResult(outcome, performance.now() - t0) };
      }
      const kept = await this.ready(rec, outcome, stageTimings(outcome));
      if (kept) this.tell(rec, 'whole', 'ready', outcome.frames, { ...outcome.timings });
      else this.tell(rec, 'whole', 'stopped');
      return kept ? { status: 'ready' } : { status: 'stopped' };
    } catch (err) {
      const why = stopped();
      // a stopped render releases its page and kills its ffmpeg before the next item starts, and before a cancel is
      // answered (no partial file may be left behind it); a job past its limit is answered first; a process that
      // closes does not wait
      if ((why === 'ended' || why === 'hand_back' || full) && rendering) await settleWithin(rendering, STOP_SETTLE_MS);
      await this.dropPartial(rec, chunk);
      if (why === 'hand_back') {
        this.tell(rec, item.part, 'handed_back');
        this.o.log.info({ job_id: id, part, event: 'render_handed_back' }, 'shutdown: handed back');
        return { status: 'handed_back' };
      }
      if (why === 'ended') {
        this.o.log.info({ job_id: id, part, event: 'render_stopped' }, 'job ended meanwhile: render stopped');
        if (chunk) await this.cleanSegments(id);
        this.tell(rec, item.part, 'stopped');
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
      await this.end(id, end);
      this.tell(rec, item.part, 'error');
      if (chunk) await this.cleanSegments(id);
      if (limit.timedOut && rendering) {
        await settleWithin(rendering, STOP_SETTLE_MS);
        await this.dropPartial(rec, chunk);
      }
      return { status: 'error', message: end.message };
    } finally {
      limit.clear();
      h.signal.removeEventListener('abort', stop);
      await rm(scratch, { recursive: true, force: true });
    }
  }

  private async dropPartial(rec: JobRecord, chunk?: { index: number }): Promise<void> {
    if (chunk) await this.o.segments.dropScratch(segmentKey(rec.job_id, chunk.index));
    else await this.o.outputs.discard(rec.job_id, rec.kind, rec.params);
  }

  private async join(item: Extract<WorkItem, { part: 'join' }>, rec: JobRecord, h: ItemHandle): Promise<ItemOutcome> {
    const id = rec.job_id;
    const results = (await h.chunkResults()).filter((r) => typeof r === 'object');
    const first = results[0];
    if (!first || results.length !== item.chunks) {
      const end = endOf(CODE.video_incomplete, 'render failed: a chunk of the video is missing');
      await this.end(id, end);
      this.tell(rec, 'join', 'error');
      await this.cleanSegments(id);
      return { status: 'error', message: end.message };
    }
    const scratch = this.o.scratch(`${id}-join`);
    const t0 = performance.now();
    try {
      const segments: string[] = [];
      for (let i = 0; i < item.chunks; i++)
        segments.push(
          await this.o.segments.download(segmentKey(id, i), scratch).catch((err: unknown) => {
            if (err instanceof StorageUnavailable) throw err;
            throw new JobFailure(`render failed: chunk ${i + 1} of ${item.chunks} is missing`, VIDEO_INCOMPLETE);
          }),
        );
      const outPath = await this.o.outputs.scratchPath(id, rec.kind, rec.params);
      await this.o.joinSegments(
        segments,
        outPath,
        chunkRanges(item.frames).map((r) => r.to - r.from),
        rec.params.codec,
      );
      // the joined file is what is kept (its segments go after): it alone is held against the budget
      await this.o.outputs.refreshCount();
      const full = await new OutputWatch(this.o.outputs, outPath, 0).overBudget();
      if (full) throw full;
    } catch (err) {
      this.o.log.warn({ err, job_id: id }, 'joining the chunks failed');
      await this.o.outputs.discard(id, rec.kind, rec.params);
      // a segment missing or short (a worker that wrote it elsewhere, a store that lost it): said as such, never a
      // shorter video reported ready
      const end = failureOf(err, { timedOut: false, limitMs: this.o.jobTimeoutMs });
      await this.end(id, end);
      this.tell(rec, 'join', 'error');
      await this.cleanSegments(id);
      return { status: 'error', message: end.message };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    const chunkMs = results.map((r) => r.ms);
    // the chunks' stage times summed, as one job's, plus how the work was cut
    const sums: Record<string, number> = {};
    for (const r of results) for (const [k, v] of Object.entries(r.timings)) sums[k] = (sums[k] ?? 0) + v;
    const timings: Record<string, number> = {
      ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, Math.round(v)])),
      chunks: item.chunks,
      chunk_max_ms: Math.round(Math.max(...chunkMs)),
      chunk_sum_ms: Math.round(chunkMs.reduce((a, b) => a + b, 0)),
      join_ms: Math.round(performance.now() - t0),
    };
    let kept: boolean;
    try {
      kept = await this.ready(
        rec,
        { width: first.width, height: first.height, runner: first.runner, frames: item.frames },
        timings,
      );
    } catch (err) {
      await this.o.outputs.discard(id, rec.kind, rec.params);
      const end = failureOf(err, { timedOut: false, limitMs: this.o.jobTimeoutMs });
      await this.end(id, end);
      this.tell(rec, 'join', 'error');
      await this.cleanSegments(id);
      return { status: 'error', message: end.message };
    }
    // told before the segments go: the job is ready for clients already. The chunks' frames were counted as they
    // were drawn: the join adds its own time only
    this.tell(rec, 'join', kept ? 'ready' : 'stopped', 0, kept ? { join_ms: timings.join_ms } : {});
    await this.cleanSegments(id);
    return kept ? { status: 'ready' } : { status: 'stopped' };
  }

  /** Stores the output and ends the job ready; false when the job had ended meanwhile (the output is removed). */
  private async ready(
    rec: JobRecord,
    outcome: Pick<RenderOutcome, 'width' | 'height' | 'runner' | 'frames'>,
    timings: Record<string, number>,
  ): Promise<boolean> {
    const output = await this.o.outputs.add(rec.job_id, rec.kind, outcome, rec.params);
    const fresh = await this.o.store.get(rec.job_id);
    if (!fresh || fresh.status !== 'pending') {
      // cancelled meanwhile: the client was told so, the file goes (and its bytes leave the budget)
      await this.o.outputs.remove(output);
      return false;
    }
    Object.assign(fresh, readyFields(fresh, output, outcome.runner, timings));
    // the cache entry first, so a client that sees the job ready and posts it again is answered from the cache (an
    // entry serves only while its job is ready: one whose job is cancelled below is never used)
    await this.o.cache?.remember(fresh);
    if (!(await this.o.store.endIfPending(fresh))) {
      // a cancel won the race between our read and our write: the client was told "cancelled", the file goes
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

  /** Ends a job in error (the first end of a record wins: a job already ended is left as it is). */
  private async end(id: string, why: JobEnd): Promise<JobRecord | undefined> {
    const rec = await endJob(this.o.store, id, why, this.o.now);
    if (rec) this.o.events.emit('ended', rec);
    return rec;
  }

  /** A job whose queue entry failed for good (stalled too often, ...): its record ends in error, never stays pending. */
  async failed(id: string, message: string): Promise<void> {
    if (await this.end(id, endOf(CODE.job_lost, `render failed: ${message}`))) await this.cleanSegments(id);
  }

  async cleanSegments(id: string): Promise<void> {
    // a bucket that is down keeps them: they go with the start-up sweep of a later process
    await this.o.segments.remove(id).catch((err) => this.o.log.warn({ err, job_id: id }, 'segments not removed'));
  }
}

function chunkResult(o: RenderOutcome, ms: number): ChunkResult {
  return { width: o.width, height: o.height, runner: o.runner, frames: o.frames, ms, timings: stageTimings(o) };
}
