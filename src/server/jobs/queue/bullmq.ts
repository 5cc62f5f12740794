// The BullMQ adapter of the queue port (with REDIS_URL): every API process adds to one BullMQ queue and every process
// that renders (a render worker, or an API with RENDER_CONCURRENCY > 0) takes from it. A job in one piece is one queue
// job (id = the job id); a video of more than one chunk is a flow: a parent "join" (id = the job id) waiting on one
// child per chunk (id = job id + "-c" + index). Nothing live is held only in one process: the line and the progress
// are in Redis (jobs/store/redis.ts), the queue's events reach every API's event streams through QueueEvents, and a
// cancel reaches the process rendering the job the same way (a `withdrawn` event of the queue's own stream).
// Faults are BullMQ's: a process that stops renewing its lock (killed, frozen) has its item moved back to the line by
// the stalled-job check of another (STALLED_INTERVAL_MS), which renders it again. Besides the port: lost() (a pending
// record whose queue entry failed for good or vanished; services.ts wires it into the job service) and metrics().
import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { Redis } from 'ioredis';
import {
  DelayedError,
  FlowProducer,
  PRIORITY_LIMIT,
  Queue,
  QueueEvents,
  QueueEventsProducer,
  UnrecoverableError,
  type QueueEventsListener,
  Worker,
  type Job,
} from 'bullmq';
import type { JobRecord } from '../store/port.js';
import type { LiveJobState } from '../job-view.js';
import { endOf, type JobEnd } from '../job-failure.js';
import { CODE } from '../../../contract/error-codes.js';
import { ItemsInHand, type JobLoad, type JobQueue, type QueueEvents as Events, type RunItem } from './port.js';
import { itemsOf, type ChunkResult, type WorkItem } from '../work-items.js';
import { settleWithin } from '../../../contract/settle-within.js';
import type { RedisJobStore } from '../store/redis.js';
import { connect } from '../../redis/connection.js';

export const QUEUE_NAME = 'cmrender';

export const chunkJobId = (id: string, index: number) => `${id}-c${index}`;

/**
 * The fair queue in Redis mode, the embedded one's policy (jobs/queue/fair-order.ts: shortest estimated work first, aged one
 * second of estimate per second waited). That order is a job's arrival plus its estimate, fixed when it is queued, so
 * it becomes BullMQ's priority (lower first): seconds since a base, plus the estimate in seconds. BullMQ's priorities
 * are integers below 2^21 (24 days of seconds): the base moves to now whenever nothing waits by priority, and a
 * job past the top takes the top (first come, first served among such). A video's chunks share their job's priority;
 * its join has none, so BullMQ takes it before any waiting job (it ends a job already begun, in half a second).
 *
 * KEYS[1] the base, KEYS[2] BullMQ's prioritized set; ARGV[1] now in seconds. Returns the base.
 */
const PRIORITY_BASE = `
local base = redis.call('GET', KEYS[1])
if not base or redis.call('ZCARD', KEYS[2]) == 0 then
  redis.call('SET', KEYS[1], ARGV[1])
  return tonumber(ARGV[1])
end
return tonumber(base)
`;
const BASE_KEY = 'cmrender:priority-base';

/** The BullMQ priority of a job that arrived at `createdAt` (ms) with an estimate of `costSeconds`. */
export function priorityOf(createdAt: number, costSeconds: number, baseSeconds: number): number {
  const p = 1 + Math.floor(createdAt / 1000 - baseSeconds + Math.max(0, costSeconds));
  return Math.min(PRIORITY_LIMIT, Math.max(1, p));
}

/** Queue options shared by every job: keep finished queue jobs briefly (the record is what clients read). */
const JOB_OPTS = { removeOnComplete: { age: 3600 }, removeOnFail: { age: 24 * 3600 } } as const;

/**
 * The queue's own event for a withdrawn job (a cancel, in any process): every process that renders hears it on the
 * queue's event stream and stops the job's items it holds. Published with BullMQ's default cap on that stream.
 */
const WITHDRAWN = 'withdrawn';
const EVENTS_MAX_LEN = 10_000;
type WithdrawnListener = QueueEventsListener & { [WITHDRAWN]: (args: { jobId: string }) => void };

/** A pending record whose queue job is gone this long after its creation was lost (Redis lost its data). */
const LOST_AFTER_MS = 10_000;
/** how often a consuming process checks that its renderer can draw */
const WATCH_RENDERER_MS = 1_000;

export interface BullmqQueueOptions {
  /** the connection items are added and read with (an API's fails fast: connectApi) */
  connection: Redis;
  /** the Redis URL: blocking connections of its own for the queue's events and, when consuming, the worker */
  redisUrl: string;
  store: RedisJobStore;
  /** items taken at once when consuming */
  concurrency: number;
  /** lock and stalled check of the items in hand (STALLED_INTERVAL_MS) */
  stalledIntervalMs: number;
  /** why the renderer cannot draw now: a consuming process takes no items meanwhile, so others get them */
  fault?: () => string | null;
  /** false: nobody here follows jobs (a render worker has no API), so no connection reads the queue's events */
  followEvents?: boolean;
  /** an item that failed for good (stalled too often): its job ends in error */
  failed?: (id: string, message: string) => Promise<void>;
  log: Logger;
  now: () => number;
}

export class BullmqQueue implements JobQueue {
  readonly events = new EventEmitter<Events>();
  readonly queue: Queue<WorkItem>;
  private readonly flows: FlowProducer;
  private readonly producer: QueueEventsProducer;
  private eventsConnection: Redis | null = null;
  private queueEvents: QueueEvents | null = null;
  private worker: Worker<WorkItem> | null = null;
  private workerConnection: Redis | null = null;
  private readonly inHand = new ItemsInHand();
  private watch: NodeJS.Timeout | null = null;
  private closing = false;

  constructor(private readonly o: BullmqQueueOptions) {
    this.queue = new Queue<WorkItem>(QUEUE_NAME, { connection: o.connection });
    this.flows = new FlowProducer({ connection: o.connection });
    this.producer = new QueueEventsProducer(QUEUE_NAME, { connection: o.connection });
    if (o.followEvents === false) return;
    // what any process does reaches every API's event streams: each event makes the streams read the record again
    const changed = ({ jobId }: { jobId: string }) => {
      this.events.emit('changed', jobId.replace(/-c\d+$/, ''));
      this.events.emit('queue');
    };
    const events = this.listen();
    for (const e of ['progress', 'completed', 'failed', 'active', 'waiting'] as const) events.on(e, changed);
  }

  /**
   * The queue's event stream, read on a connection of its own (opened once: by an API that follows jobs, or by a
   * process that starts consuming); a withdrawn job's items in this process's hands are stopped as it is heard.
   */
  private listen(): QueueEvents {
    if (this.queueEvents) return this.queueEvents;
    const o = this.o;
    this.eventsConnection = connect(o.redisUrl);
    this.eventsConnection.on('error', (err) => o.log.warn({ err }, 'redis connection error (queue events)'));
    const events = new QueueEvents(QUEUE_NAME, { connection: this.eventsConnection });
    events.on('error', (err) => o.log.warn({ err }, 'queue events: redis error'));
    events.on<WithdrawnListener>(WITHDRAWN, ({ jobId }: { jobId: string }) => void this.stopInHand(jobId));
    this.queueEvents = events;
    return events;
  }

  /** This process's items of a job (its whole item, its chunks, its join), stopped as `ended`. */
  private stopInHand(id: string): Promise<void> {
    return this.inHand.stop('ended', (key) => key === id || key.startsWith(`${id}-c`));
  }

  admit(id: string, cap: number): Promise<boolean> {
    return this.o.store.admit(id, cap);
  }

  unadmit(id: string): Promise<void> {
    return this.o.store.unadmit(id);
  }

  admitted(): Promise<number> {
    return this.o.store.admitted();
  }

  /** Queues a new job at its place in the fair order: one queue job, or a flow of chunks and their join. */
  async enqueue(rec: JobRecord): Promise<void> {
    const id = rec.job_id;
    await this.o.store.joinLine(id, rec.created_at + (rec.estimate_s ?? 0) * 1000);
    const base = (await this.o.connection.eval(
      PRIORITY_BASE,
      2,
      BASE_KEY,
      this.queue.keys.prioritized!,
      String(Math.floor(rec.created_at / 1000)),
    )) as number;
    const priority = priorityOf(rec.created_at, rec.estimate_s ?? 0, base);
    const items = itemsOf(rec);
    if ('whole' in items) {
      await this.queue.add('whole', items.whole, { ...JOB_OPTS, jobId: id, priority });
      return;
    }
    await this.flows.add({
      name: 'join',
      queueName: QUEUE_NAME,
      data: items.join,
      opts: { ...JOB_OPTS, jobId: id },
      children: items.chunks.map((data) => ({
        name: 'chunk',
        queueName: QUEUE_NAME,
        data,
        // a chunk that fails for good fails its parent (the record already says why)
        opts: {
          ...JOB_OPTS,
          jobId: chunkJobId(id, (data as { index: number }).index),
          failParentOnFailure: true,
          priority,
        },
      })),
    });
  }

  async withdraw(id: string): Promise<void> {
    // waiting queue jobs go; the items another process holds are told by the queue's event stream (a render worker
    // stops them at once, without reading the record), those this one holds are stopped here
    await this.queue.remove(id, { removeChildren: true }).catch(() => 0);
    await this.producer
      .publishEvent({ eventName: WITHDRAWN, jobId: id }, EVENTS_MAX_LEN)
      .catch((err) => this.o.log.warn({ err, job_id: id }, 'could not tell the workers of a withdrawn job'));
    await this.stopInHand(id);
    await this.o.store.clearProgress(id).catch(() => {});
  }

  /** Progress and place in line from a constant number of Redis calls, however many jobs wait. */
  async live(rec: JobRecord): Promise<LiveJobState> {
    const id = rec.job_id;
    const [parts, place] = await Promise.all([this.o.store.progressOf(id), this.o.store.placeInLine(id)]);
    let progress = parts.whole ?? 0;
    if (rec.frames && parts.whole === undefined) {
      const done = Object.values(parts).reduce((a, b) => a + b, 0);
      progress = Math.min(1, done / rec.frames);
    }
    // out of the line: a process has it (or is taking it now)
    return { progress, queuePosition: place ?? 0 };
  }

  /** A queue job that failed for good (stalled too often, a chunk failed) or vanished (Redis lost its data). */
  async lost(rec: JobRecord): Promise<JobEnd | undefined> {
    const state = await this.queue.getJobState(rec.job_id);
    if (state === 'failed') {
      const job = await this.queue.getJob(rec.job_id);
      return endOf(CODE.job_lost, `render failed: ${job?.failedReason ?? 'the queue gave the job up'}`);
    }
    if (state === 'unknown' && this.o.now() - rec.created_at > LOST_AFTER_MS) return endOf(CODE.job_lost);
    return undefined;
  }

  /** The shared queue's entries waiting, and those in a process's hands (each chunk of a video is one). */
  async load(): Promise<JobLoad> {
    const c = await this.queue.getJobCounts('waiting', 'active', 'prioritized', 'delayed');
    return { waiting: (c.waiting ?? 0) + (c.prioritized ?? 0) + (c.delayed ?? 0), running: c.active ?? 0 };
  }

  /** BullMQ's own Prometheus export of the shared queue (bullmq_job_count by state), for GET /metrics. */
  metrics(): Promise<string> {
    return this.queue.exportPrometheusMetrics();
  }

  async consume(run: RunItem): Promise<void> {
    if (this.closing) return;
    // a withdrawn job's items must be heard of before any is taken
    await this.listen().waitUntilReady();
    this.workerConnection = connect(this.o.redisUrl);
    this.workerConnection.on('error', (err) => this.o.log.warn({ err }, 'redis connection error (worker)'));
    const worker = new Worker<WorkItem>(QUEUE_NAME, (job, token) => this.process(run, job, token), {
      connection: this.workerConnection,
      autorun: false,
      concurrency: Math.max(1, this.o.concurrency),
      lockDuration: this.o.stalledIntervalMs,
      stalledInterval: this.o.stalledIntervalMs,
      // a chunk may be given again a few times (a worker killed twice); past that the job ends in error
      maxStalledCount: 3,
    });
    worker.on('error', (err) => this.o.log.warn({ err }, 'render worker: queue error'));
    worker.on('failed', (job, err) => void this.failedForGood(job, err));
    this.worker = worker;
    void worker.run();
    await worker.waitUntilReady();
    this.watch = setInterval(() => this.watchRenderer(), WATCH_RENDERER_MS);
    this.watch.unref();
  }

  private async process(run: RunItem, job: Job<WorkItem>, token?: string): Promise<ChunkResult | string> {
    const item = job.data;
    const key = String(job.id);
    const part = item.part === 'chunk' ? String(item.index) : item.part;
    const out = await this.inHand.take(key, (stop) =>
      run(item, {
        ...stop,
        report: (p, frames) => {
          if (item.part === 'join') return;
          void this.o.store.setProgress(item.id, part, item.part === 'chunk' ? frames : p).catch(() => {});
          void job.updateProgress(p).catch(() => {});
        },
        chunkResults: async () => Object.values(await job.getChildrenValues()) as ChunkResult[],
      }),
    );
    if (out.status === 'handed_back') {
      // shutdown past its grace: back in line for another process, as if this one had never taken it
      await job.moveToDelayed(Date.now(), token);
      throw new DelayedError();
    }
    // the job has ended: nothing to retry, and a chunk's parent fails with it
    if (out.status === 'error') throw new UnrecoverableError(out.message);
    if (item.part !== 'chunk') await this.o.store.clearProgress(item.id).catch(() => {});
    return out.status === 'ready' ? (out.result ?? 'ready') : 'ended';
  }

  /** A queue job that failed for good (stalled too often, ...): its record ends in error, never stays pending. */
  private async failedForGood(job: Job<WorkItem> | undefined, err: Error): Promise<void> {
    if (!job || !this.o.failed) return;
    try {
      if ((await job.getState()) !== 'failed') return;
      await this.o.failed(job.data.id, err.message);
    } catch (e) {
      this.o.log.warn({ err: e, job_id: job.data.id }, 'could not end a failed job');
    }
  }

  /**
   * A process whose renderer cannot draw (its browser's GL is gone even after relaunches) takes no items until it
   * can: its worker is paused, and resumed when the fault clears, so other processes get the jobs.
   */
  private watchRenderer(): void {
    const worker = this.worker;
    if (!worker) return;
    const fault = this.o.fault?.() ?? null;
    if (fault && !worker.isPaused()) {
      this.o.log.warn({ fault }, 'the renderer cannot draw: this worker takes no work until it can');
      void worker.pause(true).catch(() => {});
    } else if (!fault && worker.isPaused() && !this.closing) {
      this.o.log.info('the renderer draws again: this worker takes work again');
      worker.resume();
    }
  }

  /** Items this process holds now. */
  get inProgress(): number {
    return this.inHand.size;
  }

  /** Whether this process takes items now (its worker's connection is up). */
  get consuming(): boolean {
    return this.worker !== null && this.workerConnection?.status === 'ready';
  }

  /**
   * Stops taking items; those in hand get graceMs to finish. Past it their renders are stopped and they are handed
   * back to the queue at once (moved to delayed with no delay: another process takes them), not failed. A killed
   * process leaves them to the stalled check instead (STALLED_INTERVAL_MS).
   */
  async shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    if (this.watch) clearInterval(this.watch);
    const worker = this.worker;
    if (!worker) return;
    const closing = worker.close();
    if (!(await settleWithin(closing, graceMs))) {
      await this.inHand.stop('hand_back');
      await closing;
    }
  }

  /** The port's close: waiting items stay in Redis, the items in hand are interrupted, the connections close. */
  async close(): Promise<void> {
    this.closing = true;
    if (this.watch) clearInterval(this.watch);
    const closing = this.worker?.close();
    await this.inHand.stop('interrupt');
    await closing;
    await this.queueEvents?.close();
    await this.producer.close();
    await this.flows.close();
    await this.queue.close();
    // BullMQ leaves the connections it was given open
    this.workerConnection?.disconnect();
    this.eventsConnection?.disconnect();
  }
}
