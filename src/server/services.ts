// What the HTTP routes stand on: the job store, the output store, the asset store, the job service and retention,
// built from the configuration and started in the order recovery needs. One job service in both modes, over the
// local queue (embedded) or the BullMQ queue (REDIS_URL); a render worker opens the same services. No HTTP here.
import type { Logger } from 'pino';
import type { Config } from '../config/settings.js';
import type { Renderer } from '../render/renderer-port.js';
import type { JoinSegments } from '../render/renderer-port.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
import type { JobStore } from './jobs/store/port.js';
import { locally } from './jobs/store/memory.js';
import { JournalJobStore } from './jobs/store/journal.js';
import { JobService } from './jobs/job-service.js';
import { LocalQueue } from './jobs/queue/local.js';
import { Retention } from './jobs/retention.js';
import type { OutputStore } from './storage/output-store.js';
import type { AssetStore } from './storage/asset-store.js';
import { rm } from 'node:fs/promises';
import { assetCopiesRoot, dataStores, loadStorage, openStorage, scratchRoot } from './storage/data-stores.js';
import { RenderCache } from './jobs/render-cache.js';
import { DiskSpace } from './storage/disk-space.js';
import { WebhookPolicy } from './webhooks/address-policy.js';
import { configuredDispatcher, type WebhookDispatcher, type WebhookOutcome } from './webhooks/dispatcher.js';
import { IdempotencyIndex, idempotencyTtl, type IdempotencyKeys } from './jobs/idempotency.js';
import type { Redis } from 'ioredis';
import type { Backend } from './backend.js';
import { BatchService } from './jobs/batches/batch-service.js';
import { FileBatchStore, MemoryBatchStore } from './jobs/batches/batch-store.js';
import { BatchWebhooks } from './jobs/batches/batch-webhook.js';

export interface ServiceOptions {
  config: Config;
  renderer: Renderer;
  /** joins a chunked video's segments (default: ffmpeg's, from FFMPEG_PATH) */
  joinSegments?: JoinSegments;
  /** job records; default: the durable journal in DATA_DIR (jobs.journal), closed with the services */
  store?: JobStore;
  /**
   * whether this process renders (takes work from the queue once jobs.resume() is called); default: embedded always,
   * with REDIS_URL when RENDER_CONCURRENCY > 0
   */
  renders?: boolean;
  /** a render worker (`npm run worker`): no API, its Redis commands wait out an outage, no retention sweeps */
  worker?: boolean;
  log: Logger;
  now?: () => number;
  /** told of each webhook delivery attempt's outcome (the metrics) */
  onWebhookAttempt?: (outcome: WebhookOutcome) => void;
}

export interface Services {
  jobs: JobService;
  outputs: OutputStore;
  assets: AssetStore;
  retention: Retention;
  webhookPolicy: WebhookPolicy;
  idempotency: IdempotencyKeys;
  /** batches (POST /v1/batches): each row a job of `jobs` */
  batches: BatchService;
  disk: DiskSpace;
  /** the webhook deliveries this process makes (the metrics read their load) */
  webhooks: WebhookDispatcher;
  /** With REDIS_URL: the connection (the rate limits keep their counts there) */
  redis?: Redis;
  /** With REDIS_URL: the shared queue (its own Prometheus export, a worker's items in hand) */
  bullmq?: Backend['bullmq'];
  /** Stops the sweeps, interrupts the jobs in hand and closes the journal this opened (not the renderer). */
  close(): Promise<void>;
}

/**
 * Opens the stores and recovers the jobs of the last run: records are replayed, interrupted jobs settled, what expired
 * while the service was down is swept, the disk budget is checked. Recovered jobs are queued by `jobs.resume()` once
 * the renderer has started. With REDIS_URL: records and queue in Redis, shared by every API process and render worker;
 * outputs and assets in the storage (STORAGE_URL), shared too; no recovery and no partial-file sweep at start (other
 * processes may be rendering now): a lost job is ended when it is next read.
 */
export async function openServices(opts: ServiceOptions): Promise<Services> {
  await loadStorage(opts.config);
  const { config, log } = opts;
  const now = opts.now ?? Date.now;
  const shared = Boolean(config.redisUrl);
  const renders = opts.renders ?? (opts.worker || !shared || config.renderConcurrency > 0);
  // an item that failed for good in BullMQ ends its job through the service built below
  const late: { jobs?: JobService } = {};
  const backend = shared
    ? await (
        await import('./redis/redis-backend.js')
      ).redisBackend(opts, now, renders, (id, message) => late.jobs?.runner.failed(id, message) ?? Promise.resolve())
    : await localBackend(opts, now);
  const store = backend.plain;
  const { outputs, assets, answers } = dataStores(config, backend.store, log, now, backend.sharedCount);
  const segments = openStorage(config, 'segments');
  const cache = renderCache(opts, store, outputs, assets, now);
  const disk = new DiskSpace(config.dataDir, config.diskMinFreeBytes);
  // what one adapter alone means comes with the backend's wiring, not on the port: the local queue's recovery, count
  // and render slots, BullMQ's lost entries, the journal's writability, a bucket's probe
  const queue = backend.queue(outputs);
  const jobs = new JobService({
    store: backend.store,
    queue: queue.queue,
    admittedNow: queue.admittedNow,
    renderSlots: queue.renderSlots,
    lost: queue.lost,
    storeWritable: backend.storeWritable,
    storageAnswers: answers,
    endedCountedInProcess: backend.endedCountedInProcess,
    runStore: backend.runStore,
    link: backend.link,
    renderer: opts.renderer,
    joinSegments: opts.joinSegments ?? segmentJoiner(config.ffmpegPath),
    assets,
    outputs,
    segments,
    jobTimeoutMs: config.jobTimeoutMs,
    maxQueuedJobs: config.maxQueuedJobs,
    maxEndedJobs: config.maxEndedJobs,
    retentionMs: config.retentionMs,
    disk,
    scratchDir: scratchRoot(config),
    cache,
    renders,
    log,
    now,
  });
  late.jobs = jobs;
  // an ended job no longer counts against MAX_QUEUED_JOBS, from the moment its record ends
  const ended = queue.ended;
  if (ended) jobs.events.on('ended', (rec) => ended(rec.job_id));
  const retention = new Retention({
    store: backend.store,
    outputs,
    assets,
    cache,
    retentionMs: config.retentionMs,
    keepPending: backend.keepPending,
    log,
    now,
  });
  // the jobs this process ends have their webhook delivered from here (in Redis mode each attempt is claimed there
  // first, so a delivery several processes resume is still made once per attempt)
  const webhooks = configuredDispatcher(config, {
    store: backend.store,
    log,
    now,
    onAttempt: opts.onWebhookAttempt,
    claimAttempt: backend.claimAttempt,
  });
  jobs.events.on('ended', (rec) => webhooks.ended(rec));
  // the local copies its estimate and its renders shared go with the job
  jobs.events.on('ended', (rec) => void assets.jobEnded(rec.assets).catch(() => {}));
  const idempotency = backend.idempotency(now);
  if (!shared) {
    // nothing renders yet: what a job's scratch held belongs to the last run
    await rm(scratchRoot(config), { recursive: true, force: true });
    await rm(assetCopiesRoot(config), { recursive: true, force: true });
    await assets.init();
    await outputs.init();
    await segments.init();
    // nothing renders yet: every partial file (a .tmp, a GIF's frames or palette) and every chunk segment is left
    // from the last run (a recovered video renders its chunks again)
    await outputs.removePartials();
    for (const job of await segments.list()) await segments.remove(job);
  } else {
    // scratch may be shared with other processes on the same DATA_DIR: nothing of it is wiped at start
    await assets.init({ shared: true });
    await outputs.init({ shared: true });
    await segments.init({ shared: true });
  }
  // the journal's pending jobs queued again (rendered once jobs.resume() is called), before the ended ones are counted
  await queue.recover?.();
  await jobs.init();
  // after recovery: a job that recovery ended in error has its webhook delivered too
  await webhooks.resume();
  if (!shared) {
    idempotency.seed?.(await store.list());
    await retention.sweep();
    await outputs.enforceBudget();
  } else if (config.outputMaxBytes !== undefined && (await backend.sharedCount!.outputBytes()) === 0)
    // the shared byte count starts from the storage when Redis has none (a new Redis, or one that lost its data)
    await outputs.enforceBudget();
  const batchView: { of?: BatchService } = {};
  const batches = new BatchService({
    jobs,
    store: backend.batches,
    outputs,
    webhooks: opts.worker
      ? undefined
      : new BatchWebhooks({
          store: backend.batches,
          policy: new WebhookPolicy(config.webhookAllow),
          retryDelaysMs: config.webhookRetryMs,
          timeoutMs: config.webhookTimeoutMs,
          view: (rec) => batchView.of!.view(rec),
          log,
          now,
        }),
    maxRows: config.batchMaxRows,
    retentionMs: config.retentionMs,
    log,
    now,
  });
  batchView.of = batches;
  if (!opts.worker) await batches.init(idempotency.keys);
  if (!opts.worker) retention.start();
  return {
    jobs,
    batches,
    outputs,
    assets,
    retention,
    webhookPolicy: new WebhookPolicy(config.webhookAllow),
    idempotency: idempotency.keys,
    disk,
    webhooks,
    redis: backend.redis,
    bullmq: backend.bullmq,
    async close() {
      retention.stop();
      batches.close();
      await jobs.close();
      await webhooks.close();
      await backend.close();
    },
  };
}

async function localBackend(opts: ServiceOptions, now: () => number): Promise<Backend> {
  const { config, log } = opts;
  const journal = opts.store ? null : await JournalJobStore.open({ dir: config.dataDir });
  const plain = opts.store ?? journal!;
  const store = locally(plain);
  return {
    store,
    plain,
    queue: (outputs) => {
      const local = new LocalQueue({ store, outputs, concurrency: config.renderConcurrency, log, now });
      return {
        queue: local,
        admittedNow: () => local.admittedNow(),
        renderSlots: (task) => local.direct(task),
        ended: (id) => local.ended(id),
        recover: () => local.recover(),
      };
    },
    idempotency: (n) => {
      const index = new IdempotencyIndex(n, idempotencyTtl(config.retentionMs));
      return { keys: index, seed: (records) => index.seed(records) };
    },
    ...(journal ? { storeWritable: () => journal.writable() } : {}),
    endedCountedInProcess: true,
    // beside the journal; a service given its job store (tests) keeps its batches in memory too
    batches: opts.store ? new MemoryBatchStore() : new FileBatchStore(config.dataDir),
    async close() {
      await journal?.close();
    },
  };
}

/** The render cache over the storage's `cache` area, shared by every process that shares the storage. */
export function renderCache(
  opts: Pick<ServiceOptions, 'config' | 'renderer' | 'log'>,
  store: JobStore,
  outputs: OutputStore,
  assets: AssetStore,
  now: () => number,
): RenderCache {
  return new RenderCache({
    files: openStorage(opts.config, 'cache'),
    store,
    assets,
    outputs,
    renderer: opts.renderer,
    retentionMs: opts.config.retentionMs,
    log: opts.log,
    now,
    enabled: opts.config.renderCache,
  });
}
