// Every environment variable the service reads, with its default and its documentation.
// The configuration table in docs/configuration.md is generated from CONFIG_DOC (see test/server/docs.test.ts).
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { LIMITS } from '../contract/limits.js';
import { parseGlSetting, parseVideoEncoder, type GlSetting, type VideoEncoderName } from '../contract/hardware.js';

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  renderConcurrency: number;
  logLevel: string;
  jobTimeoutMs: number;
  frameBudgetMs: number;
  retentionMs: number;
  chromiumPath: string;
  renderGl: GlSetting;
  renderEncoder: VideoEncoderName;
  ffmpegPath: string;
  maxQueuedJobs: number;
  maxEndedJobs: number;
  outputMaxBytes: number;
  assetsMaxBytes: number;
  diskMinFreeBytes: number;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  maxConcurrentUploads: number;
  shutdownGraceMs: number;
  webhookAllow: string[];
  webhookRetryMs: number[];
  webhookTimeoutMs: number;
  webhookConcurrency: number;
  testConcurrency: number;
  uploadMaxBytes: number;
  metricsPort: number | null;
  redisUrl: string;
  stalledIntervalMs: number;
  storageUrl: string;
  renderCache: boolean;
  s3ForcePathStyle: boolean;
  storagePublicUrls: 'stream' | 'presigned';
  storageRequestTimeoutMs: number;
  storageDeadlineMs: number;
  metrics: boolean;
  readyMaxEventLoopDelayMs: number;
  apiKeys: string;
  apiKeysReads: boolean;
  rateLimitPosts: number;
  rateLimitWindowMs: number;
  maxQueuedJobsPerClient: number;
}

export interface ConfigEntry {
  name: string;
  key: keyof Config;
  default: string;
  doc: string;
  parse: (raw: string) => Config[keyof Config];
}

function int(name: string, min: number) {
  return (raw: string): number => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer of at least ${min}, got "${raw}"`);
    return n;
  };
}
const str = (raw: string): string => raw;
function onOff(name: string) {
  return (raw: string): boolean => {
    if (/^(on|1|true)$/i.test(raw)) return true;
    if (/^(off|0|false)$/i.test(raw)) return false;
    throw new Error(`${name} must be on or off, got "${raw}"`);
  };
}
const list = (raw: string): string[] =>
  raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
function intList(name: string) {
  return (raw: string): number[] => list(raw).map((x) => int(name, 0)(x));
}

export const CONFIG_DOC: ConfigEntry[] = [
  { name: 'PORT', key: 'port', default: '3000', doc: 'TCP port the HTTP server listens on.', parse: int('PORT', 0) },
  {
    name: 'HOST',
    key: 'host',
    default: '127.0.0.1',
    doc: 'Address to bind, never guessed (the ready line says the address bound). The Docker image sets 0.0.0.0.',
    parse: str,
  },
  {
    name: 'DATA_DIR',
    key: 'dataDir',
    default: './data',
    doc: 'Where outputs (`outputs/`), uploaded assets (`assets/`) and the job journal (`jobs.journal`) are stored.',
    parse: (r) => resolve(r),
  },
  {
    name: 'RENDER_CONCURRENCY',
    key: 'renderConcurrency',
    default: 'one per 4 cores, at least 1',
    doc: 'How many jobs (with `REDIS_URL`: chunks) this process renders at the same time. Each takes two pages, an encoder and its share of the GL (llvmpipe draws with every core), so one per 4 cores: 1 on 2 cores, 4 on 16. `0` (only with `REDIS_URL`): an API process that renders nothing.',
    parse: int('RENDER_CONCURRENCY', 0),
  },
  {
    name: 'LOG_LEVEL',
    key: 'logLevel',
    default: 'info',
    doc: 'pino log level: fatal, error, warn, info, debug, trace or silent.',
    parse: str,
  },
  {
    name: 'JOB_TIMEOUT_MS',
    key: 'jobTimeoutMs',
    default: '900000',
    doc: 'Wall-clock limit of one job (15 minutes); past it the job ends in `error`.',
    parse: int('JOB_TIMEOUT_MS', 1),
  },
  {
    name: 'FRAME_BUDGET_MS',
    key: 'frameBudgetMs',
    default: '60000',
    doc: 'Longest one frame may take to draw in the page (build, draw, read back); past it the job ends with `frame_budget`.',
    parse: int('FRAME_BUDGET_MS', 1),
  },
  {
    name: 'RETENTION_MS',
    key: 'retentionMs',
    default: '86400000',
    doc: 'How long outputs, job records and assets are kept (24 hours).',
    parse: int('RETENTION_MS', 1),
  },
  {
    name: 'CHROMIUM_PATH',
    key: 'chromiumPath',
    default: '/usr/bin/chromium',
    doc: 'The Chromium binary driven by playwright-core.',
    parse: str,
  },
  {
    name: 'RENDER_GL',
    key: 'renderGl',
    default: 'auto',
    doc: "Which GL draws the frames. `egl`: ANGLE on the system's EGL: Mesa's llvmpipe on a machine without a GPU (Debian's `libegl-mesa0` and `libgl1-mesa-dri`), the GPU where its EGL driver is installed; fast. `swiftshader`: ANGLE on SwiftShader, the reference runner's exact pixels, slower. `auto`: `egl` when a probe frame draws on it at start, else `swiftshader`. The backend and renderer string are logged at start (`gl_backend`, `gl_renderer`); an explicit `egl` that cannot draw stops the start with a clear message.",
    parse: parseGlSetting,
  },
  {
    name: 'RENDER_ENCODER',
    key: 'renderEncoder',
    default: 'x264',
    doc: "H.264 encoder of videos. `x264`: libx264, the same bytes on every machine. `nvenc`: NVIDIA's h264_nvenc, where an NVIDIA GPU and its driver are present (checked by one encode at start; a machine without it stops the start with a clear message).",
    parse: parseVideoEncoder,
  },
  {
    name: 'FFMPEG_PATH',
    key: 'ffmpegPath',
    default: 'ffmpeg',
    doc: 'The ffmpeg binary (looked up on PATH by default).',
    parse: str,
  },
  {
    name: 'MAX_QUEUED_JOBS',
    key: 'maxQueuedJobs',
    default: '1000',
    doc: 'Jobs waiting or rendering at most; past it a new job is refused with `503` `queue_full` and `retry-after`.',
    parse: int('MAX_QUEUED_JOBS', 1),
  },
  {
    name: 'MAX_ENDED_JOBS',
    key: 'maxEndedJobs',
    default: '10000',
    doc: 'Ended job records kept at most (with REDIS_URL, across every process); past it the record and output of the job that ended first go before their 24 hours. An ended record keeps no source (its SHA-256 instead): about 1 KB in memory and in the journal, so 10,000 ended jobs cost about 10-20 MB.',
    parse: int('MAX_ENDED_JOBS', 1),
  },
  {
    name: 'OUTPUT_MAX_BYTES',
    key: 'outputMaxBytes',
    default: '10737418240',
    doc: 'Disk budget of `outputs/` (10 GiB). Over it the oldest outputs not held by a job younger than 24 hours go; if that is not enough, new jobs get `503` `storage_full`.',
    parse: int('OUTPUT_MAX_BYTES', 1),
  },
  {
    name: 'ASSETS_MAX_BYTES',
    key: 'assetsMaxBytes',
    default: '1073741824',
    doc: 'Disk budget of `assets/` (1 GiB): an upload that would pass it is refused with `503` `storage_full` until uploads expire (24 hours).',
    parse: int('ASSETS_MAX_BYTES', 1),
  },
  {
    name: 'DISK_MIN_FREE_BYTES',
    key: 'diskMinFreeBytes',
    default: '104857600',
    doc: 'Free space kept on the disk holding `DATA_DIR` (100 MiB): below it new jobs and uploads get `503` `storage_full` and `/healthz` answers 503.',
    parse: int('DISK_MIN_FREE_BYTES', 0),
  },
  {
    name: 'REQUEST_TIMEOUT_MS',
    key: 'requestTimeoutMs',
    default: '60000',
    doc: 'Time limit to receive a whole request, headers and body (a slower client gets `408` and the connection is closed); an upload of 10 × 25 MiB needs about 4.2 MiB/s.',
    parse: int('REQUEST_TIMEOUT_MS', 1),
  },
  {
    name: 'HEADERS_TIMEOUT_MS',
    key: 'headersTimeoutMs',
    default: '10000',
    doc: "Time limit to receive a request's headers (at most `REQUEST_TIMEOUT_MS`): a client that sends half its headers and then trickles or waits gets `408` and the connection is closed, so idle sockets cannot use up the process's file descriptors.",
    parse: int('HEADERS_TIMEOUT_MS', 1),
  },
  {
    name: 'MAX_CONCURRENT_UPLOADS',
    key: 'maxConcurrentUploads',
    default: '4',
    doc: 'Asset uploads in progress at once; past it `503` `too_many_uploads`.',
    parse: int('MAX_CONCURRENT_UPLOADS', 1),
  },
  {
    name: 'UPLOAD_MAX_BYTES',
    key: 'uploadMaxBytes',
    default: '263192576',
    doc: 'Largest body of one `POST /v1/assets`, multipart framing included (10 files of 25 MiB and 1 MiB of framing). A body declared larger is answered `413` `upload_too_large` before any of it is read; one sent without a length, the moment its bytes pass it; the rest is not read and the connection is closed. A single file over 25 MiB is answered `400` `file_too_large` the same way.',
    parse: int('UPLOAD_MAX_BYTES', 1),
  },
  {
    name: 'TEST_CONCURRENCY',
    key: 'testConcurrency',
    default: '2',
    doc: '`GET /test` renders in progress at once (drawing, or waiting for the render slot); past it `503` `too_many_tests` with `retry-after`, before anything is drawn.',
    parse: int('TEST_CONCURRENCY', 1),
  },
  {
    name: 'WEBHOOK_ALLOW',
    key: 'webhookAllow',
    default: '(empty)',
    doc: 'Comma-separated host names, addresses or CIDR ranges webhooks may reach although they are not public (private, loopback, link-local, unique-local). Empty: webhooks reach public addresses only.',
    parse: list,
  },
  {
    name: 'WEBHOOK_RETRY_MS',
    key: 'webhookRetryMs',
    default: '2000,5000,15000,30000,60000',
    doc: 'Waits between webhook delivery attempts (milliseconds); one attempt more than waits (six over about two minutes).',
    parse: intList('WEBHOOK_RETRY_MS'),
  },
  {
    name: 'WEBHOOK_TIMEOUT_MS',
    key: 'webhookTimeoutMs',
    default: '10000',
    doc: 'Time limit of one webhook delivery attempt.',
    parse: int('WEBHOOK_TIMEOUT_MS', 1),
  },
  {
    name: 'WEBHOOK_CONCURRENCY',
    key: 'webhookConcurrency',
    default: '16',
    doc: 'Webhook delivery attempts in flight at once (each holds an outgoing connection for up to `WEBHOOK_TIMEOUT_MS`); when many jobs end together the others wait in line, first due first sent, and none is dropped.',
    parse: int('WEBHOOK_CONCURRENCY', 1),
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    key: 'shutdownGraceMs',
    default: '10000',
    doc: 'On SIGTERM, how long the job in hand may take to finish before it is checkpointed (queued again at the next start).',
    parse: int('SHUTDOWN_GRACE_MS', 0),
  },
  {
    name: 'REDIS_URL',
    key: 'redisUrl',
    default: '(empty)',
    doc: 'Empty: one process with its own queue and journal. Set (`redis://host:6379`): jobs, their records and progress live in Redis (BullMQ); any number of API processes and render workers (`npm run worker`) share them and `DATA_DIR` (see docs/scaling.md).',
    parse: str,
  },
  {
    name: 'STALLED_INTERVAL_MS',
    key: 'stalledIntervalMs',
    default: '30000',
    doc: 'With `REDIS_URL`: how long a render worker may go silent (killed, frozen) before its job or chunk is given to another worker (BullMQ lock duration and stalled-job check).',
    parse: int('STALLED_INTERVAL_MS', 500),
  },
  {
    name: 'STORAGE_URL',
    key: 'storageUrl',
    default: 'file:',
    doc: "Where outputs, uploaded assets and chunk segments are kept. `file:`: under `DATA_DIR` (shared by every process with `REDIS_URL`). `s3://bucket/prefix`: in an S3-compatible bucket (`outputs/`, `assets/`, `segments/`, `cache/` under the prefix); `DATA_DIR` then holds only local scratch (and the journal without Redis). Connection settings are the AWS SDK's own variables (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ENDPOINT_URL_S3`; see docs/scaling.md).",
    parse: (r) => {
      if (r !== 'file:' && !/^s3:\/\/[^/]+/.test(r))
        throw new Error(`STORAGE_URL must be file: or s3://bucket[/prefix], got "${r}"`);
      return r;
    },
  },
  {
    name: 'RENDER_CACHE',
    key: 'renderCache',
    default: 'on',
    doc: '`on`: a job identical to one whose output is still kept (same kind, source and runner pin, params, assets by content, GL renderer and encoder) is ready at once with a copy of that output (`cached: true`); `Cache-Control: no-cache` or `params.cache: false` skip it for one job. `off`: every job renders (benchmarks, determinism checks).',
    parse: onOff('RENDER_CACHE'),
  },
  {
    name: 'S3_FORCE_PATH_STYLE',
    key: 's3ForcePathStyle',
    default: '0',
    doc: 'With `STORAGE_URL=s3://…`: `1` addresses the bucket as `endpoint/bucket/key` (path style), which most servers other than AWS (MinIO, s3rver, Ceph) need; `0`: `bucket.endpoint/key`.',
    parse: (r) => {
      if (r !== '0' && r !== '1') throw new Error(`S3_FORCE_PATH_STYLE must be 0 or 1, got "${r}"`);
      return r === '1';
    },
  },
  {
    name: 'STORAGE_PUBLIC_URLS',
    key: 'storagePublicUrls',
    default: 'stream',
    doc: '`stream`: `GET /v1/outputs/{filename}` streams the output through the service. `presigned` (with `STORAGE_URL=s3://…`): it answers `302` to a presigned URL of the object that is valid as long as the output is kept (at most 7 days, the SigV4 limit), so the bytes come from the bucket directly; the bucket must be reachable by the clients.',
    parse: (r) => {
      if (r !== 'stream' && r !== 'presigned')
        throw new Error(`STORAGE_PUBLIC_URLS must be stream or presigned, got "${r}"`);
      return r;
    },
  },
  {
    name: 'STORAGE_REQUEST_TIMEOUT_MS',
    key: 'storageRequestTimeoutMs',
    default: '5000',
    doc: "With `STORAGE_URL=s3://…`: one request to the bucket fails when its answer has not begun within this time (the SDK's `requestTimeout`, made to throw), and is retried twice. An upload part (5 MiB) must be sent within it too: raise it on a slow link.",
    parse: int('STORAGE_REQUEST_TIMEOUT_MS', 100),
  },
  {
    name: 'STORAGE_DEADLINE_MS',
    key: 'storageDeadlineMs',
    default: '15000',
    doc: 'With `STORAGE_URL=s3://…`: one storage operation (a read, a write, a listing, its retries included) ends with `503` `storage_unavailable` (or a job with that code) when the bucket has not finished it within this time; a transfer of more than a few MiB gets 1 s more per MiB. `/readyz` answers `503` `storage_unavailable` while the bucket does not answer a listing within a second.',
    parse: int('STORAGE_DEADLINE_MS', 100),
  },
  {
    name: 'METRICS',
    key: 'metrics',
    default: 'on',
    doc: "`GET /metrics`: Prometheus metrics of this process (`cmrender_*`, and Node's `process_*`/`nodejs_*`). `off`: no route and nothing counted.",
    parse: onOff('METRICS'),
  },
  {
    name: 'METRICS_PORT',
    key: 'metricsPort',
    default: '(empty: none)',
    doc: "With `REDIS_URL`, for `npm run worker`: a render worker has no API, so it serves `GET /metrics` (its renders: `cmrender_worker_renders_total` by kind, part and status, jobs ended, render and stage times, frames, Chromium launches and page crashes, Node's process metrics; absent with `METRICS=off`), `GET /healthz` (503 only when its renderer cannot draw) and `GET /readyz` (503 while starting, stopping, or without renderer or Redis) on this port, at `HOST`. `0`: a port the system picks (the ready line says which, `metrics_address`).",
    parse: int('METRICS_PORT', 0),
  },
  {
    name: 'READY_MAX_EVENT_LOOP_DELAY_MS',
    key: 'readyMaxEventLoopDelayMs',
    default: '1000',
    doc: '`GET /readyz` answers 503 `overloaded` while the event loop is delayed longer than this (measured by `@fastify/under-pressure`); other routes keep answering. `0`: not checked.',
    parse: int('READY_MAX_EVENT_LOOP_DELAY_MS', 0),
  },
  {
    name: 'API_KEYS',
    key: 'apiKeys',
    default: '(empty: no keys)',
    doc: 'API keys: a file (a value starting with `/` or `.`; one key per line, `#` comments; missing or unreadable: the service does not start) or a comma-separated list; an entry `sha256:<64 hex>` is the SHA-256 of a key (`printf %s "$KEY" \\| sha256sum`). Set: every write under `/v1/` (POST, DELETE) needs `Authorization: Bearer <key>`, else `401` `unauthorized`; a job is its key\'s alone (another key gets `404`).',
    parse: str,
  },
  {
    name: 'API_KEYS_READS',
    key: 'apiKeysReads',
    default: 'off',
    doc: 'With `API_KEYS`: `on` asks for a key on reads under `/v1/` too (jobs, events, outputs, assets); `off`: reads by their unguessable ids stay open.',
    parse: onOff('API_KEYS_READS'),
  },
  {
    name: 'RATE_LIMIT_POSTS',
    key: 'rateLimitPosts',
    default: '0 (no limit)',
    doc: 'POSTs under `/v1/` per `RATE_LIMIT_WINDOW_MS` per API key (without one: per client address); past it `429` `rate_limited` with `Retry-After` and the IETF `RateLimit-Policy` / `RateLimit` fields. Counted in Redis with `REDIS_URL`.',
    parse: int('RATE_LIMIT_POSTS', 0),
  },
  {
    name: 'RATE_LIMIT_WINDOW_MS',
    key: 'rateLimitWindowMs',
    default: '60000',
    doc: 'The window of `RATE_LIMIT_POSTS`.',
    parse: int('RATE_LIMIT_WINDOW_MS', 1000),
  },
  {
    name: 'MAX_QUEUED_JOBS_PER_CLIENT',
    key: 'maxQueuedJobsPerClient',
    default: '0 (no limit)',
    doc: 'Jobs one client (its API key, else its address) may have waiting or rendering at once; past it `429` `client_queue_full` with `Retry-After`. Without `REDIS_URL` only (with Redis the jobs end in the workers).',
    parse: int('MAX_QUEUED_JOBS_PER_CLIENT', 0),
  },
];

/** Render slots when RENDER_CONCURRENCY is unset: one per 4 cores (measured on 2 cores: one slot, two pages). */
export function defaultRenderConcurrency(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 4));
}

export function defaultConfig(): Config {
  return {
    port: 3000,
    host: '127.0.0.1',
    dataDir: resolve('data'),
    renderConcurrency: defaultRenderConcurrency(),
    logLevel: 'info',
    jobTimeoutMs: 15 * 60 * 1000,
    frameBudgetMs: LIMITS.frameDrawMs,
    retentionMs: 24 * 60 * 60 * 1000,
    chromiumPath: '/usr/bin/chromium',
    renderGl: 'auto',
    renderEncoder: 'x264',
    ffmpegPath: 'ffmpeg',
    maxQueuedJobs: 1000,
    maxEndedJobs: 10_000,
    outputMaxBytes: 10 * 1024 * 1024 * 1024,
    assetsMaxBytes: 1024 * 1024 * 1024,
    diskMinFreeBytes: 100 * 1024 * 1024,
    requestTimeoutMs: 60_000,
    headersTimeoutMs: 10_000,
    maxConcurrentUploads: 4,
    shutdownGraceMs: 10_000,
    webhookAllow: [],
    webhookRetryMs: [2_000, 5_000, 15_000, 30_000, 60_000],
    webhookTimeoutMs: 10_000,
    webhookConcurrency: 16,
    testConcurrency: 2,
    uploadMaxBytes: LIMITS.assets.maxFiles * LIMITS.assets.maxFileBytes + 1024 * 1024,
    metricsPort: null,
    redisUrl: '',
    stalledIntervalMs: 30_000,
    storageUrl: 'file:',
    renderCache: true,
    s3ForcePathStyle: false,
    storagePublicUrls: 'stream',
    storageRequestTimeoutMs: 5_000,
    storageDeadlineMs: 15_000,
    metrics: true,
    readyMaxEventLoopDelayMs: 1000,
    apiKeys: '',
    apiKeysReads: false,
    rateLimitPosts: 0,
    rateLimitWindowMs: 60_000,
    maxQueuedJobsPerClient: 0,
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const cfg = defaultConfig() as unknown as Record<string, unknown>;
  for (const e of CONFIG_DOC) {
    const raw = env[e.name];
    if (raw !== undefined && raw !== '') cfg[e.key] = e.parse(raw);
  }
  // one process without Redis must render, or no job would ever end
  if (cfg.renderConcurrency === 0 && !cfg.redisUrl)
    throw new Error('RENDER_CONCURRENCY=0 (an API that renders nothing) needs REDIS_URL and render workers');
  return cfg as unknown as Config;
}

/** The Markdown table for docs/configuration.md. */
export function configTable(): string {
  const rows = CONFIG_DOC.map((e) => `| \`${e.name}\` | ${e.default} | ${e.doc} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
