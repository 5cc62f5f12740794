// A render worker (with REDIS_URL): takes queue jobs from BullMQ and renders them with the same Renderer as the
// embedded service. Workers share nothing but Redis and the storage (STORAGE_URL): a job's assets come down into
// the worker's own scratch, a job in one piece is rendered into a scratch file and uploaded as its output; a chunk
// into a scratch segment uploaded as segments/<job>/<index>.ts (written as .tmp and renamed, and uploaded whole, so a
// killed worker never leaves a segment that counts); a chunked video's parent, once every chunk is done, downloads
// the segments, joins them (no re-encode) and uploads the output. Scratch goes when the part ends.
// Faults are BullMQ's: a worker that stops renewing its lock (killed, frozen) has its queue job moved back to the
// line by the stalled-job check of another worker (STALLED_INTERVAL_MS), which renders it again.
import { EventEmitter } from 'node:events';
import { rm } from 'node:fs/promises';
import type { VideoCodec } from '../../contract/outputs.js';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import { DelayedError, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Config } from '../config.js';
import { JobFailure, VIDEO_INCOMPLETE, type Renderer, type RenderOutcome } from '../../render/renderer-port.js';
import type { JobRecord } from '../jobs/store.js';
import type { JobKind } from '../http/schemas/jobs.js';
import type { OutputStore } from '../storage/output-store.js';
import type { AssetStore } from '../storage/asset-store.js';
import { CODE } from '../../contract/error-codes.js';
import { RedisJobStore } from './redis-store.js';
import { QUEUE_NAME, connect, segmentKey, type WorkData } from './work-queue.js';
import { STORAGE_DOWN, StorageUnavailable, type Storage } from '../storage/storage.js';
import { dataStores, jobScratch, openStorage } from '../storage/data-stores.js';
import { chunkRanges } from '../../contract/chunks.js';
import { endJob } from './job-end.js';
import { deadline } from '../../contract/deadline.js';
import { failureOf, readyFields, stageTimings } from '../jobs/job-failure.js';
import { INTERNAL_REASON } from '../../contract/job-reasons.js';
import { settleWithin } from '../jobs/settle.js';
import { RenderCache } from '../jobs/render-cache.js';
import { configuredDispatcher, type WebhookDispatcher, type WebhookOutcome } from '../webhooks/dispatcher.js';
import {
  redisUnavailable,
  rendererUnavailable,
  shuttingDown,
  starting,
  type Refusal,
} from '../durability/admission.js';

export interface RenderWorkerOptions {
  config: Config;
  renderer: Renderer;
  /**
   * joins the segments, in order, into the codec's file without re-encoding (src/render/ffmpeg.ts's joinSegments),
   * after checking each has its frames; a segment missing or short throws a JobFailure coded VIDEO_INCOMPLETE
   */
  joinSegments: (segments: string[], outPath: string, segmentFrames: number[], codec?: VideoCodec) => Promise<void>;
  log: Logger;
  now?: () => number;
}

/** A piece of work a worker takes from the queue: a job in one piece, a chunk of a video, or the join of its chunks. */
export type PartName = WorkData['part'];

/**
 * How a piece of work ended in this worker. ready: its output (or segment) is kept; error: the job ended in error;
 * stopped: the job had ended meanwhile (a cancel), nothing is kept; handed_back: a shutdown gave it back to the queue.
 */
export type PartStatus = 'ready' | 'error' | 'stopped' | 'handed_back';

/** What a worker tells of its work (the worker's metrics listen), so the worker knows nothing of them. */
export interface RenderWorkerEvents {
  /** a piece of work done, with the frames it drew into what is kept and where its time went (`<stage>_ms`) */
  part: [e: { kind: JobKind; part: PartName; status: PartStatus; frames: number; timings: Record<string, unknown> }];
  /** a job this worker ended (ready after a whole render or a join; error) */
  ended: [rec: JobRecord];
  /** an attempt to deliver the webhook of a job this worker ended, by outcome */
  webhook: [outcome: WebhookOutcome];
}

/** What a chunk hands its parent (BullMQ keeps it as the child's return value). */
interface ChunkResult {
  width: number;
  height: number;
  runner: string;
  frames: number;
  ms: number;
  timings: Record<string, number>;
}

/** How often a rendering job reports its progress and looks whether its record was ended meanwhile (a cancel). */
const PROGRESS_EVERY_MS = 250;
/** how often a worker checks that its renderer can draw */
const WATCH_RENDERER_MS = 1_000;

export class RenderWorker {
  readonly worker: Worker<WorkData>;
  readonly events = new EventEmitter<RenderWorkerEvents>();
  private readonly redis: Redis;
  private readonly workerConnection: Redis;
  /** abort controllers of the queue jobs rendering now, by queue job id */
  private readonly inHand = new Map<string, AbortController>();
  /** set by close() once the grace is over: stopped renders go back to the queue instead of failing */
  private handingBack = false;
  private readonly store: RedisJobStore;
  private readonly outputs: OutputStore;
  private readonly assets: AssetStore;
  /** chunk segments, segments/<job>/<index>.ts of the storage */
  private readonly segments: Storage;
  private readonly now: () => number;
  private watch: NodeJS.Timeout | null = null;
  private closing = false;
  private started = false;
  /** the render cache: a job this worker makes ready is recorded for any API to answer from */
  private readonly cache: RenderCache;
  /** the webhooks of the jobs this worker ends (each attempt claimed in Redis: services.ts) */
  private readonly webhooks: WebhookDispatcher;

  constructor(private readonly o: RenderWorkerOptions) {
    const { config } = o;
    this.now = o.now ?? Date.now;
    this.redis = connect(config.redisUrl);
    this.redis.on('error', (err) => o.log.warn({ err }, 'redis connection error'));
    this.store = new RedisJobStore(this.redis, config.retentionMs, this.now);
    ({ outputs: this.outputs, assets: this.assets } = dataStores(config, this.store, o.log, this.now, this.store));
    this.segments = openStorage(config, 'segments');
    this.cache = new RenderCache({
      files: openStorage(config, 'cache'),
      store: this.store,
      assets: this.assets,
      outputs: this.outputs,
      renderer: o.renderer,
      retentionMs: config.retentionMs,
      log: o.log,
      now: this.now,
      enabled: config.renderCache,
    });
    this.webhooks = configuredDispatcher(config, {
      store: this.store,
      log: o.log,
      now: this.now,
      onAttempt: (outcome) => this.events.emit('webhook', outcome),
      claimAttempt: (id, n, holdMs) => this.store.claimWebhookAttempt(id, n, holdMs),
    });
    // the job this worker ends (the first end of a record wins) has its webhook delivered from here
    this.events.on('ended', (rec) => this.webhooks.ended(rec));
    this.workerConnection = this.redis.duplicate();
    this.worker = new Worker<WorkData>(QUEUE_NAME, (job, token) => this.process(job, token), {
      connection: this.workerConnection,
      autorun: false,
      concurrency: Math.max(1, config.renderConcurrency),
      lockDuration: config.stalledIntervalMs,
      stalledInterval: config.stalledIntervalMs,
      // a chunk may be given again a few times (a worker killed twice); past that the job ends in error
      maxStalledCount: 3,
    });
    this.worker.on('error', (err) => o.log.warn({ err }, 'render worker: queue error'));
    this.worker.on('failed', (job, err) => void this.failed(job, err));
  }

  /**
   * A worker whose renderer cannot draw (its browser's GL is gone even after relaunches) takes no work until it can:
   * the queue is paused here and resumed when the renderer's fault clears, so other workers get the jobs.
   */
  private watchRenderer(): void {
    const fault = this.o.renderer.fault?.() ?? null;
    if (fault && !this.worker.isPaused()) {
      this.o.log.warn({ fault }, 'the renderer cannot draw: this worker takes no work until it can');
      void this.worker.pause(true).catch(() => {});
    } else if (!fault && this.worker.isPaused() && !this.closing) {
      this.o.log.info('the renderer draws again: this worker takes work again');
      this.worker.resume();
    }
  }

  /** Starts taking work (the renderer must have started). */
  async start(): Promise<void> {
    // scratch may be shared with other workers on the same DATA_DIR: nothing of it is wiped at start
    await this.outputs.init({ shared: true });
    await this.assets.init({ shared: true });
    await this.segments.init({ shared: true });
    // segments of jobs that ended without a join (a chunk failed, Redis lost the job) go once past the retention
    const cutoff = this.now() - this.o.config.retentionMs;
    for (const job of await this.segments.list()) {
      const times = [];
      for (const key of await this.segments.list(job)) times.push((await this.segments.stat(key))?.mtimeMs ?? 0);
      if (Math.max(0, ...times) <= cutoff) await this.segments.remove(job);
    }
    void this.worker.run();
    await this.worker.waitUntilReady();
    this.watch = setInterval(() => this.watchRenderer(), WATCH_RENDERER_MS);
    this.watch.unref();
    this.started = true;
  }

  /** Liveness: only a renderer that cannot draw even after relaunches (a fresh process is the cure left). */
  health(): Refusal | null {
    const fault = this.o.renderer.fault?.() ?? null;
    return fault ? rendererUnavailable(fault) : null;
  }

  /** Readiness: why this worker takes no work now (starting, stopping, no renderer, no Redis); null when it does. */
  readiness(): Refusal | null {
    if (this.closing) return shuttingDown();
    if (!this.started) return starting();
    const down = this.health();
    if (down) return down;
    if (this.workerConnection.status !== 'ready') return redisUnavailable();
    return null;
  }

  /**
   * Stops taking work; the jobs and chunks in hand get graceMs to finish. Past it their renders are stopped and they
   * are handed back to the queue at once (moved to delayed with no delay: another worker takes them), not failed. A
   * killed process leaves them to the stalled check instead (STALLED_INTERVAL_MS).
   */
  async close(graceMs = Infinity): Promise<void> {
    this.closing = true;
    if (this.watch) clearInterval(this.watch);
    const closing = this.worker.close();
    if (!(await settleWithin(closing, graceMs))) {
      this.handingBack = true;
      for (const ctl of this.inHand.values()) ctl.abort(new Error('shutdown'));
      await closing;
    }
    // a delivery in flight is cut, not counted: the next process to start resumes it
    await this.webhooks.close();
    // BullMQ leaves the connections it was given open
    this.workerConnection.disconnect();
    this.redis.disconnect();
  }

  /** A queue job this worker has been given, until it is ready, stopped, failed or handed back. */
  get inProgress(): number {
    return this.inHand.size;
  }

  private tell(rec: JobRecord, part: PartName, status: PartStatus, frames = 0, timings: Record<string, unknown> = {}) {
    this.events.emit('part', { kind: rec.kind, part, status, frames, timings });
  }

  private async process(job: Job<WorkData>, token?: string): Promise<ChunkResult | string> {
    const d = job.data;
    const rec = await this.store.get(d.id);
    if (!rec || rec.status !== 'pending') {
      if (rec) this.tell(rec, d.part, 'stopped');
      this.o.log.info({ job_id: d.id, part: d.part, event: 'render_skipped' }, 'job already ended: nothing to render');
      // a cancelled or failed chunked video: what its finished chunks left goes with it
      if (d.part !== 'whole') await this.cleanSegments(d.id);
      return 'ended';
    }
    // the first item of a job a worker takes starts it: it leaves the line, and its time limit runs from now
    if (rec.started_at === undefined && !(await this.store.markStarted(rec, this.now()))) {
      this.o.log.info(
        { job_id: d.id, part: d.part, event: 'render_skipped' },
        'job ended meanwhile: nothing to render',
      );
      if (d.part !== 'whole') await this.cleanSegments(d.id);
      return 'ended';
    }
    if (d.part === 'join') return this.joinChunks(job, rec, d);
    const chunk = d.part === 'chunk' ? d : undefined;
    const part = chunk ? String(chunk.index) : 'whole';
    const scratch = jobScratch(this.o.config, `${rec.job_id}-${part}`);
    const ctl = new AbortController();
    this.inHand.set(String(job.id), ctl);
    let ended = false;
    // JOB_TIMEOUT_MS is the job's, not each chunk's: what is left of it since the job started
    const limit = deadline(ctl, rec.started_at! + this.o.config.jobTimeoutMs - this.now());
    let last = 0;
    const onProgress = (p: number, f?: { done: number; total: number }) => {
      const t = performance.now();
      if (t - last < PROGRESS_EVERY_MS) return;
      last = t;
      void this.store.setProgress(rec.job_id, part, chunk ? (f?.done ?? 0) : p, rec.created_at).catch(() => {});
      void job.updateProgress(p).catch(() => {});
      void this.store.get(rec.job_id).then((r) => {
        if (r?.status !== 'pending') {
          ended = true;
          ctl.abort(new Error('ended'));
        }
      });
    };
    const t0 = performance.now();
    this.o.log.info({ job_id: rec.job_id, part, event: 'render_started' }, 'rendering');
    try {
      const files = await this.assets.localFiles(rec.assets, scratch);
      const outPath = chunk
        ? await this.segments.scratchPath(segmentKey(rec.job_id, chunk.index))
        : await this.outputs.scratchPath(rec.job_id, rec.kind, rec.params);
      const outcome = await this.o.renderer.render(
        {
          id: rec.job_id,
          kind: rec.kind,
          source: rec.source,
          params: rec.params,
          assets: files,
          outPath,
          ...(chunk ? { frames: { from: chunk.from, to: chunk.to } } : {}),
        },
        { signal: ctl.signal, onProgress },
      );
      if (chunk) {
        await this.segments.upload(segmentKey(rec.job_id, chunk.index), outPath);
        // ended (cancelled) while this chunk rendered: its segment and its siblings' go now, not with a sweep a day
        // later; a sibling still rendering cleans up the same way when it ends
        if ((await this.store.get(rec.job_id))?.status !== 'pending') {
          await this.cleanSegments(rec.job_id);
          this.tell(rec, 'chunk', 'stopped');
          return 'ended';
        }
        await this.store.setProgress(rec.job_id, part, chunk.to - chunk.from, rec.created_at);
        this.o.log.info(
          {
            job_id: rec.job_id,
            chunk: chunk.index,
            frames: chunk.to - chunk.from,
            ms: Math.round(performance.now() - t0),
            event: 'chunk_done',
          },
          'chunk rendered',
        );
        this.tell(rec, 'chunk', 'ready', chunk.to - chunk.from, { ...outcome.timings });
        return chunkResult(outcome, performance.now() - t0);
      }
      const kept = await this.ready(rec, outcome, stageTimings(outcome));
      if (kept) this.tell(rec, 'whole', 'ready', outcome.frames, { ...outcome.timings });
      else this.tell(rec, 'whole', 'stopped');
      return 'ready';
    } catch (err) {
      if (chunk) await this.segments.dropScratch(segmentKey(rec.job_id, chunk.index));
      else await this.outputs.discard(rec.job_id, rec.kind, rec.params);
      if (this.handingBack && !limit.timedOut && !ended) {
        // shutdown past its grace: back in line for another worker, as if this one had never taken it
        await job.moveToDelayed(Date.now(), token);
        this.tell(rec, part === 'whole' ? 'whole' : 'chunk', 'handed_back');
        this.o.log.info(
          { job_id: rec.job_id, part, event: 'render_handed_back' },
          'shutdown: handed back to the queue',
        );
        throw new DelayedError();
      }
      if (ended) {
        this.o.log.info({ job_id: rec.job_id, part, event: 'render_stopped' }, 'job ended meanwhile: render stopped');
        if (chunk) await this.cleanSegments(rec.job_id);
        this.tell(rec, chunk ? 'chunk' : 'whole', 'stopped');
        return 'ended';
      }
      const why = failureOf(err, { timedOut: limit.timedOut, limitMs: this.o.config.jobTimeoutMs });
      if (!(err instanceof JobFailure)) this.o.log.warn({ err, job_id: rec.job_id, part }, 'render failed');
      await this.end(rec.job_id, why);
      this.tell(rec, chunk ? 'chunk' : 'whole', 'error');
      await this.cleanSegments(rec.job_id);
      // the job has ended: nothing to retry, and a chunk's parent fails with it
      throw new UnrecoverableError(why.message);
    } finally {
      limit.clear();
      await rm(scratch, { recursive: true, force: true });
      this.inHand.delete(String(job.id));
    }
  }

  private async joinChunks(
    job: Job<WorkData>,
    rec: JobRecord,
    d: Extract<WorkData, { part: 'join' }>,
  ): Promise<string> {
    const results = Object.values(await job.getChildrenValues()) as ChunkResult[];
    const first = results.find((r) => typeof r === 'object');
    if (!first || results.length !== d.chunks) {
      await this.end(rec.job_id, { message: 'render failed: a chunk of the video is missing', code: null });
      this.tell(rec, 'join', 'error');
      return 'ended';
    }
    const scratch = jobScratch(this.o.config, `${rec.job_id}-join`);
    const t0 = performance.now();
    try {
      const segments: string[] = [];
      for (let i = 0; i < d.chunks; i++)
        segments.push(
          await this.segments.download(segmentKey(rec.job_id, i), scratch).catch((err: unknown) => {
            if (err instanceof StorageUnavailable) throw err;
            throw new JobFailure(`render failed: chunk ${i + 1} of ${d.chunks} is missing`, VIDEO_INCOMPLETE);
          }),
        );
      await this.o.joinSegments(
        segments,
        await this.outputs.scratchPath(rec.job_id, rec.kind, rec.params),
        chunkRanges(d.frames).map((r) => r.to - r.from),
        rec.params.codec,
      );
    } catch (err) {
      this.o.log.warn({ err, job_id: rec.job_id }, 'joining the chunks failed');
      await this.outputs.discard(rec.job_id, rec.kind, rec.params);
      const down = err instanceof StorageUnavailable;
      await this.end(
        rec.job_id,
        // a segment missing or short (a worker that wrote it elsewhere, a store that lost it): said as such,
        // never a shorter video reported ready
        down
          ? { message: STORAGE_DOWN, code: CODE.storage_unavailable }
          : err instanceof JobFailure
            ? { message: err.message, code: err.code }
            : { message: 'render failed: the chunks could not be joined', code: null },
      );
      this.tell(rec, 'join', 'error');
      await this.cleanSegments(rec.job_id);
      throw new UnrecoverableError('join failed');
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
    const chunkMs = results.map((r) => r.ms);
    const timings: Record<string, number> = {
      chunks: d.chunks,
      chunk_max_ms: Math.round(Math.max(...chunkMs)),
      chunk_sum_ms: Math.round(chunkMs.reduce((a, b) => a + b, 0)),
      join_ms: Math.round(performance.now() - t0),
    };
    let kept: boolean;
    try {
      kept = await this.ready(
        rec,
        { width: first.width, height: first.height, runner: first.runner, frames: d.frames },
        timings,
      );
    } catch (err) {
      await this.outputs.discard(rec.job_id, rec.kind, rec.params);
      const why =
        err instanceof StorageUnavailable
          ? { message: STORAGE_DOWN, code: CODE.storage_unavailable }
          : { message: INTERNAL_REASON, code: null };
      await this.end(rec.job_id, why);
      this.tell(rec, 'join', 'error');
      await this.cleanSegments(rec.job_id);
      throw new UnrecoverableError(why.message);
    }
    await this.cleanSegments(rec.job_id);
    // the chunks' frames were counted as they were drawn: the join adds its own time only
    this.tell(rec, 'join', kept ? 'ready' : 'stopped', 0, kept ? { join_ms: timings.join_ms } : {});
    return 'ready';
  }

  /** Stores the output and ends the job ready; false when the job had ended meanwhile (the output is removed). */
  private async ready(
    rec: JobRecord,
    outcome: Pick<RenderOutcome, 'width' | 'height' | 'runner' | 'frames'>,
    timings: Record<string, number>,
  ): Promise<boolean> {
    const output = await this.outputs.add(rec.job_id, rec.kind, outcome, rec.params);
    const fresh = await this.store.get(rec.job_id);
    if (!fresh || fresh.status !== 'pending') {
      // cancelled meanwhile: the client was told so, the file goes (and its bytes leave the budget)
      await this.outputs.remove(output);
      return false;
    }
    Object.assign(fresh, readyFields(fresh, output, outcome.runner, timings));
    if (!(await this.store.endIfPending(fresh))) {
      // a cancel won the race between our read and our write: the client was told "cancelled", the file goes
      await this.outputs.remove(output);
      return false;
    }
    this.events.emit('ended', fresh);
    await this.store.clearProgress(rec.job_id);
    await this.cache.remember(fresh);
    this.o.log.info(
      { job_id: rec.job_id, kind: rec.kind, status: 'ready', event: 'job_ready', ...fresh.timings },
      'job ready',
    );
    return true;
  }

  /** Ends a job in error (the first end of a record wins: a job already ended is left as it is). */
  private async end(id: string, why: Parameters<typeof endJob>[2]): Promise<JobRecord | undefined> {
    const rec = await endJob(this.store, id, why, this.now);
    if (rec) this.events.emit('ended', rec);
    return rec;
  }

  /** A queue job that failed for good (stalled too often, ...): its record ends in error, never stays pending. */
  private async failed(job: Job<WorkData> | undefined, err: Error): Promise<void> {
    if (!job) return;
    try {
      if ((await job.getState()) !== 'failed') return;
      const rec = await this.end(job.data.id, { message: `render failed: ${err.message}`, code: null });
      if (rec) await this.cleanSegments(job.data.id);
    } catch (e) {
      this.o.log.warn({ err: e, job_id: job.data.id }, 'could not end a failed job');
    }
  }

  private async cleanSegments(id: string): Promise<void> {
    // a bucket that is down keeps them: they go with the start-up sweep of a later worker
    await this.segments.remove(id).catch((err) => this.o.log.warn({ err, job_id: id }, 'segments not removed'));
  }
}

function chunkResult(o: RenderOutcome, ms: number): ChunkResult {
  return { width: o.width, height: o.height, runner: o.runner, frames: o.frames, ms, timings: stageTimings(o) };
}
