// Every setting of every process, declared once (setting.ts): the service's and a worker's (SERVICE_SETTINGS, whose
// inferred type is `Config`), the standalone runner's (the service's with PORT 8080) and the command line's
// (CLI_SETTINGS). docs/configuration.md's tables are written from them (scripts/gen-config-doc.ts; a test keeps
// them equal).
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { LIMITS } from '../contract/limits.js';
import { GL_SETTINGS, VIDEO_ENCODERS } from '../contract/hardware.js';
import { describeDuration } from '../contract/describe-duration.js';
import {
  ConfigError,
  entriesOf,
  flag,
  integer,
  integerList,
  oneOf,
  optionalInteger,
  path,
  readSettings,
  settingsTable,
  text,
  wordList,
} from './setting.js';

/** How long outputs, records and assets are kept by default; also the disk budget's and idempotency's window. */
export const DEFAULT_RETENTION_MS = 24 * 60 * 60 * 1000;
const DEFAULT_JOB_TIMEOUT_MS = 15 * 60 * 1000;
const KEPT = describeDuration(DEFAULT_RETENTION_MS);
const MiB = 1024 * 1024;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const PUBLIC_URL_MODES = ['stream', 'presigned'] as const;

/** Render slots when RENDER_CONCURRENCY is unset: one per 4 cores (measured on 2 cores: one slot, two pages). */
export function defaultRenderConcurrency(cores = availableParallelism()): number {
  return Math.max(1, Math.floor(cores / 4));
}

export const SERVICE_SETTINGS = z.object({
  port: integer({ env: 'PORT', default: '3000', min: 0, doc: 'TCP port the HTTP server listens on.' }),
  host: text({
    env: 'HOST',
    default: '127.0.0.1',
    doc: 'Address to bind, never guessed (the ready line says the address bound). The Docker image sets 0.0.0.0.',
  }),
  dataDir: path({
    env: 'DATA_DIR',
    default: './data',
    doc: 'Where outputs (`outputs/`), uploaded assets (`assets/`) and the job journal (`jobs.journal`) are stored.',
  }),
  renderConcurrency: integer({
    env: 'RENDER_CONCURRENCY',
    min: 0,
    default: { value: () => defaultRenderConcurrency(), shown: 'one per 4 cores, at least 1' },
    doc: 'How many jobs (with `REDIS_URL`: chunks) this process renders at the same time. Each takes two pages, an encoder and its share of the GL (llvmpipe draws with every core), so one per 4 cores: 1 on 2 cores, 4 on 16. `0` (only with `REDIS_URL`): an API process that renders nothing.',
  }),
  logLevel: oneOf(LOG_LEVELS, {
    env: 'LOG_LEVEL',
    default: 'info',
    doc: 'pino log level: fatal, error, warn, info, debug, trace or silent. `npm start` logs one JSON object a line to a pipe or a file, and readable lines (`12:04:05 INFO  message (key=value ...)`, coloured unless `NO_COLOR`) on a terminal.',
  }),
  jobTimeoutMs: integer({
    env: 'JOB_TIMEOUT_MS',
    min: 1,
    default: String(DEFAULT_JOB_TIMEOUT_MS),
    doc: `Wall-clock limit of one job (${describeDuration(DEFAULT_JOB_TIMEOUT_MS)}); past it the job ends in \`error\`.`,
  }),
  frameBudgetMs: integer({
    env: 'FRAME_BUDGET_MS',
    min: 1,
    default: String(LIMITS.frameDrawMs),
    doc: 'Longest one frame may take to draw in the page (build, draw, read back); past it the job ends with `frame_budget`.',
  }),
  retentionMs: integer({
    env: 'RETENTION_MS',
    min: 1,
    default: String(DEFAULT_RETENTION_MS),
    doc: `How long outputs, job records and assets are kept (${describeDuration(DEFAULT_RETENTION_MS)}).`,
  }),
  chromiumPath: text({
    env: 'CHROMIUM_PATH',
    default: '/usr/bin/chromium',
    doc: 'The Chromium binary driven by playwright-core.',
  }),
  renderGl: oneOf(GL_SETTINGS, {
    env: 'RENDER_GL',
    default: 'auto',
    doc: "Which GL draws the frames. `egl`: ANGLE on the system's EGL: Mesa's llvmpipe on a machine without a GPU (Debian's `libegl-mesa0` and `libgl1-mesa-dri`), the GPU where its EGL driver is installed; fast. `swiftshader`: ANGLE on SwiftShader, the reference runner's exact pixels, slower. `auto`: `egl` when a probe frame draws on it at start, else `swiftshader`. The backend and renderer string are logged at start (`gl_backend`, `gl_renderer`); an explicit `egl` that cannot draw stops the start with a clear message.",
  }),
  renderEncoder: oneOf(VIDEO_ENCODERS, {
    env: 'RENDER_ENCODER',
    default: 'x264',
    doc: "H.264 encoder of videos. `x264`: libx264, the same bytes on every machine. `nvenc`: NVIDIA's h264_nvenc, where an NVIDIA GPU and its driver are present (checked by one encode at start; a machine without it stops the start with a clear message).",
  }),
  ffmpegPath: text({ env: 'FFMPEG_PATH', default: 'ffmpeg', doc: 'The ffmpeg binary (looked up on PATH by default).' }),
  maxQueuedJobs: integer({
    env: 'MAX_QUEUED_JOBS',
    default: '1000',
    min: 1,
    doc: 'Jobs waiting or rendering at most; past it a new job is refused with `503` `queue_full` and `retry-after`.',
  }),
  maxEndedJobs: integer({
    env: 'MAX_ENDED_JOBS',
    default: '10000',
    min: 1,
    doc: `Ended job records kept at most (with REDIS_URL, across every process); past it the record and output of the job that ended first go before their ${KEPT}. An ended record keeps no source (its SHA-256 instead): about 1 KB in memory and in the journal, so 10,000 ended jobs cost about 10-20 MB.`,
  }),
  outputMaxBytes: integer({
    env: 'OUTPUT_MAX_BYTES',
    default: '10737418240',
    min: 1,
    doc: `Disk budget of \`outputs/\` (10 GiB). Over it the oldest outputs not held by a job younger than ${KEPT} go; if that is not enough, new jobs get \`503\` \`storage_full\`.`,
  }),
  assetsMaxBytes: integer({
    env: 'ASSETS_MAX_BYTES',
    default: '1073741824',
    min: 1,
    doc: `Disk budget of \`assets/\` (1 GiB): an upload that would pass it is refused with \`503\` \`storage_full\` until uploads expire (${KEPT}).`,
  }),
  diskMinFreeBytes: integer({
    env: 'DISK_MIN_FREE_BYTES',
    default: '104857600',
    min: 0,
    doc: 'Free space kept on the disk holding `DATA_DIR` (100 MiB): below it new jobs and uploads get `503` `storage_full` and `/healthz` answers 503.',
  }),
  requestTimeoutMs: integer({
    env: 'REQUEST_TIMEOUT_MS',
    default: '60000',
    min: 1,
    doc: 'Time limit to receive a whole request, headers and body (a slower client gets `408` and the connection is closed); an upload of 10 × 25 MiB needs about 4.2 MiB/s.',
  }),
  headersTimeoutMs: integer({
    env: 'HEADERS_TIMEOUT_MS',
    default: '10000',
    min: 1,
    doc: "Time limit to receive a request's headers (at most `REQUEST_TIMEOUT_MS`): a client that sends half its headers and then trickles or waits gets `408` and the connection is closed, so idle sockets cannot use up the process's file descriptors.",
  }),
  maxConnections: integer({
    env: 'MAX_CONNECTIONS',
    default: '0',
    min: 0,
    doc: "Connections held at once; past it a new connection is closed as soon as it is accepted. `0`: the process's open-file limit (`ulimit -n`) less 256, which stay for the job journal, outputs, assets, Chromium and Redis (no cap where the limit cannot be read: not Linux, or unlimited), so a flood of idle connections cannot take the files a render needs.",
  }),
  maxConcurrentUploads: integer({
    env: 'MAX_CONCURRENT_UPLOADS',
    default: '4',
    min: 1,
    doc: 'Asset uploads in progress at once; past it `503` `too_many_uploads`.',
  }),
  uploadMaxBytes: integer({
    env: 'UPLOAD_MAX_BYTES',
    min: 1,
    default: String(LIMITS.assets.maxFiles * LIMITS.assets.maxFileBytes + MiB),
    doc: 'Largest body of one `POST /v1/assets`, multipart framing included (10 files of 25 MiB and 1 MiB of framing). A body declared larger is answered `413` `upload_too_large` before any of it is read; one sent without a length, the moment its bytes pass it; the rest is not read and the connection is closed. A single file over 25 MiB is answered `400` `file_too_large` the same way.',
  }),
  testConcurrency: integer({
    env: 'TEST_CONCURRENCY',
    default: '2',
    min: 1,
    doc: '`GET /test` renders in progress at once (drawing, or waiting for the render slot); past it `503` `too_many_tests` with `retry-after`, before anything is drawn.',
  }),
  webhookAllow: wordList({
    env: 'WEBHOOK_ALLOW',
    default: { value: () => [], shown: '(empty)' },
    doc: 'Comma-separated host names, addresses or CIDR ranges webhooks may reach although they are not public (private, loopback, link-local, unique-local). Empty: webhooks reach public addresses only.',
  }),
  webhookRetryMs: integerList({
    env: 'WEBHOOK_RETRY_MS',
    default: '2000,5000,15000,30000,60000',
    min: 0,
    doc: 'Waits between webhook delivery attempts (milliseconds); one attempt more than waits (six over about two minutes).',
  }),
  webhookTimeoutMs: integer({
    env: 'WEBHOOK_TIMEOUT_MS',
    default: '10000',
    min: 1,
    doc: 'Time limit of one webhook delivery attempt.',
  }),
  webhookConcurrency: integer({
    env: 'WEBHOOK_CONCURRENCY',
    default: '16',
    min: 1,
    doc: 'Webhook delivery attempts in flight at once (each holds an outgoing connection for up to `WEBHOOK_TIMEOUT_MS`); when many jobs end together the others wait in line, first due first sent, and none is dropped.',
  }),
  shutdownGraceMs: integer({
    env: 'SHUTDOWN_GRACE_MS',
    default: '10000',
    min: 0,
    doc: 'On SIGTERM, how long the job in hand may take to finish before it is checkpointed (queued again at the next start).',
  }),
  redisUrl: text({
    env: 'REDIS_URL',
    default: { value: () => '', shown: '(empty)' },
    doc: 'Empty: one process with its own queue and journal. Set (`redis://host:6379`): jobs, their records and progress live in Redis (BullMQ); any number of API processes and render workers (`npm run worker`) share them and `DATA_DIR` (see docs/scaling.md).',
  }),
  stalledIntervalMs: integer({
    env: 'STALLED_INTERVAL_MS',
    default: '30000',
    min: 500,
    doc: 'With `REDIS_URL`: how long a render worker may go silent (killed, frozen) before its job or chunk is given to another worker (BullMQ lock duration and stalled-job check).',
  }),
  storageUrl: text({
    env: 'STORAGE_URL',
    default: 'file:',
    pattern: /^(?:file:$|s3:\/\/[^/])/,
    accepts: 'file: or s3://bucket[/prefix]',
    doc: "Where outputs, uploaded assets and chunk segments are kept. `file:`: under `DATA_DIR` (shared by every process with `REDIS_URL`). `s3://bucket/prefix`: in an S3-compatible bucket (`outputs/`, `assets/`, `segments/`, `cache/` under the prefix); `DATA_DIR` then holds only local scratch (and the journal without Redis). Connection settings are the AWS SDK's own variables (`AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_ENDPOINT_URL_S3`; see docs/scaling.md).",
  }),
  renderCache: flag({
    env: 'RENDER_CACHE',
    default: 'on',
    doc: '`on`: a job identical to one whose output is still kept (same kind, source and runner pin, params, assets by content, GL renderer and encoder) is ready at once with a copy of that output (`cached: true`); `Cache-Control: no-cache` or `params.cache: false` skip it for one job. `off`: every job renders (benchmarks, determinism checks).',
  }),
  s3ForcePathStyle: flag({
    env: 'S3_FORCE_PATH_STYLE',
    default: '0',
    doc: 'With `STORAGE_URL=s3://…`: `1` addresses the bucket as `endpoint/bucket/key` (path style), which most servers other than AWS (MinIO, s3rver, Ceph) need; `0`: `bucket.endpoint/key`.',
  }),
  storagePublicUrls: oneOf(PUBLIC_URL_MODES, {
    env: 'STORAGE_PUBLIC_URLS',
    default: 'stream',
    doc: '`stream`: `GET /v1/outputs/{filename}` streams the output through the service. `presigned` (with `STORAGE_URL=s3://…`): it answers `302` to a presigned URL of the object that is valid as long as the output is kept (at most 7 days, the SigV4 limit), so the bytes come from the bucket directly; the bucket must be reachable by the clients.',
  }),
  storageRequestTimeoutMs: integer({
    env: 'STORAGE_REQUEST_TIMEOUT_MS',
    default: '5000',
    min: 100,
    doc: "With `STORAGE_URL=s3://…`: one request to the bucket fails when its answer has not begun within this time (the SDK's `requestTimeout`, made to throw), and is retried twice. An upload part (5 MiB) must be sent within it too: raise it on a slow link.",
  }),
  storageDeadlineMs: integer({
    env: 'STORAGE_DEADLINE_MS',
    default: '15000',
    min: 100,
    doc: 'With `STORAGE_URL=s3://…`: one storage operation (a read, a write, a listing, its retries included) ends with `503` `storage_unavailable` (or a job with that code) when the bucket has not finished it within this time; a transfer of more than a few MiB gets 1 s more per MiB. `/readyz` answers `503` `storage_unavailable` while the bucket does not answer a listing within a second.',
  }),
  metrics: flag({
    env: 'METRICS',
    default: 'on',
    doc: "`GET /metrics`: Prometheus metrics of this process (`cmrender_*`, and Node's `process_*`/`nodejs_*`). `off`: no route and nothing counted.",
  }),
  metricsPort: optionalInteger({
    env: 'METRICS_PORT',
    shown: '(empty: none)',
    min: 0,
    doc: "With `REDIS_URL`, for `npm run worker`: a render worker has no API, so it serves `GET /metrics` (its renders: `cmrender_worker_renders_total` by kind, part and status, jobs ended, render and stage times, frames, Chromium launches and page crashes, Node's process metrics; absent with `METRICS=off`), `GET /healthz` (503 only when its renderer cannot draw) and `GET /readyz` (503 while starting, stopping, or without renderer or Redis) on this port, at `HOST`. `0`: a port the system picks (the ready line says which, `metrics_address`).",
  }),
  readyMaxEventLoopDelayMs: integer({
    env: 'READY_MAX_EVENT_LOOP_DELAY_MS',
    default: '1000',
    min: 0,
    doc: '`GET /readyz` answers 503 `overloaded` while the event loop is delayed longer than this (the mean delay of 10 ms ticks over each second); other routes keep answering. `0`: not checked.',
  }),
  apiKeys: text({
    env: 'API_KEYS',
    default: { value: () => '', shown: '(empty: no keys)' },
    doc: 'API keys: a file (a value starting with `/` or `.`; one key per line, `#` comments; missing or unreadable: the service does not start) or a comma-separated list; an entry `sha256:<64 hex>` is the SHA-256 of a key (`printf %s "$KEY" \\| sha256sum`). Set: every write under `/v1/` (POST, DELETE) needs `Authorization: Bearer <key>`, else `401` `unauthorized`; a job is its key\'s alone (another key gets `404`).',
  }),
  apiKeysReads: flag({
    env: 'API_KEYS_READS',
    default: 'off',
    doc: 'With `API_KEYS`: `on` asks for a key on reads under `/v1/` too (jobs, events, outputs, assets); `off`: reads by their unguessable ids stay open.',
  }),
  rateLimitPosts: integer({
    env: 'RATE_LIMIT_POSTS',
    min: 0,
    default: '0',
    shown: '0 (no limit)',
    doc: 'POSTs under `/v1/` per `RATE_LIMIT_WINDOW_MS` per API key (without one: per client address); past it `429` `rate_limited` with `Retry-After` and the IETF `RateLimit-Policy` / `RateLimit` fields. Counted in Redis with `REDIS_URL`.',
  }),
  rateLimitWindowMs: integer({
    env: 'RATE_LIMIT_WINDOW_MS',
    default: '60000',
    min: 1000,
    doc: 'The window of `RATE_LIMIT_POSTS`.',
  }),
  batchMaxRows: integer({
    env: 'BATCH_MAX_ROWS',
    min: 1,
    default: '1000',
    doc: 'Rows one `POST /v1/batches` may hold; past it `400` `too_many_rows` and no job is made.',
  }),
  maxQueuedJobsPerClient: integer({
    env: 'MAX_QUEUED_JOBS_PER_CLIENT',
    min: 0,
    default: '0',
    shown: '0 (no limit)',
    doc: 'Jobs one client (its API key, else its address) may have waiting or rendering at once; past it `429` `client_queue_full` with `Retry-After`. Without `REDIS_URL` only (with Redis the jobs end in the workers).',
  }),
});

export type Config = z.output<typeof SERVICE_SETTINGS>;

/** The standalone runner (`npm run runner`): the service's settings, listening on 8080 unless PORT says. */
export const RUNNER_SETTINGS = SERVICE_SETTINGS.extend({
  port: integer({ env: 'PORT', default: '8080', min: 0, doc: 'TCP port the standalone runner listens on.' }),
});

export const DEFAULT_SERVICE_URL = 'http://127.0.0.1:3000';

/** The command line: `cmrender render` draws with the service's Chromium, GL and ffmpeg; `cmrender mcp` talks to one. */
export const CLI_SETTINGS = SERVICE_SETTINGS.pick({ chromiumPath: true, renderGl: true, ffmpegPath: true }).extend({
  serviceUrl: text({
    env: 'CMRENDER_URL',
    default: DEFAULT_SERVICE_URL,
    doc: '`cmrender mcp`: the service its tools talk to, unless `--url` says.',
  }),
  serviceApiKey: text({
    env: 'CMRENDER_API_KEY',
    default: { value: () => '', shown: '(empty: none)' },
    doc: '`cmrender mcp`: the API key sent to the service (`Authorization: Bearer`), if it asks for one; a variable, not a flag, so it stays out of the process list.',
  }),
});

/**
 * The service's (or a worker's, or the runner's) configuration from the environment. A bad value throws a
 * ConfigError naming each bad variable, its value and what it accepts.
 */
export function loadConfig(
  env: NodeJS.ProcessEnv = process.env,
  schema: typeof SERVICE_SETTINGS | typeof RUNNER_SETTINGS = SERVICE_SETTINGS,
): Config {
  const cfg = readSettings(schema, env);
  // one process without Redis must render, or no job would ever end
  if (cfg.renderConcurrency === 0 && !cfg.redisUrl)
    throw new ConfigError('RENDER_CONCURRENCY=0 (an API that renders nothing) needs REDIS_URL and render workers');
  return cfg;
}

/** Every setting at its default. */
export function defaultConfig(): Config {
  return loadConfig({});
}

/** Each command reads only what it uses: a bad RENDER_GL does not stop `cmrender mcp`. */
export const CLI_RENDER_SETTINGS = CLI_SETTINGS.pick({ chromiumPath: true, renderGl: true, ffmpegPath: true });
export const CLI_MCP_SETTINGS = CLI_SETTINGS.pick({ serviceUrl: true, serviceApiKey: true });

/** The Markdown tables of docs/configuration.md: the service's, and the command line's. */
export const configTable = (): string => settingsTable(SERVICE_SETTINGS);
export const cliConfigTable = (): string => settingsTable(CLI_SETTINGS);

/** The service's settings in order, each with its key, variable, shown default, what it accepts and its doc. */
export const CONFIG_DOC = entriesOf(SERVICE_SETTINGS).map(({ key, meta }) => ({ key: key as keyof Config, ...meta }));
