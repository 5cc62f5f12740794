// Every error code the service, the standalone runner and the export library can give, in the manner of Fastify's
// lib/errors.js: one entry per code with the HTTP status of an answer carrying it, whether a job can end with it
// (a job record's `code`), and the sentence a user reads. Call sites name a code through CODE (`CODE.queue_full`)
// and build answers with envelope() or the server's httpError(), so a code cannot be misspelt or given the wrong
// status, and the OpenAPI document and docs/api.md's table are written from here (test/contract/error-codes.test.ts
// checks that nothing emits a code outside it). The language's diagnostic codes (PAR100, ASS001, ...) are their own
// namespace (src/lang/diagnostics.ts), as are the drawing page's (viewer/src/page-api.ts), which never reach a client.
import { LIMITS } from './limits.js';

/** The statuses an error answer of ours has. */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 406 | 408 | 409 | 413 | 415 | 416 | 422 | 429 | 500 | 503;

export interface ErrorCodeEntry {
  /** The status of an HTTP answer with this code; absent where no answer carries it (only a job ends with it). */
  readonly status?: ErrorStatus;
  /** A job can end in error with it as its `code` (GET /v1/jobs/{id}'s 500, the webhook, the runner's 500). */
  readonly job?: true;
  /**
   * The sentence a user reads when the call site has nothing more precise to say (and docs/api.md's table says).
   * Where a refusal names its details (a field, a size, a count) the call site says them instead, under the same code.
   */
  readonly message: string;
}

const REGISTRY = {
  // 400: the request itself (service.md "Requests"), in the order the validator reports them
  bad_json: { status: 400, message: 'request body must be a JSON object' },
  missing_source: { status: 400, message: 'source is required and must be a non-empty string' },
  source_too_large: {
    status: 400,
    message: `source is longer than ${LIMITS.sourceMaxChars} characters (a mesh's SVG: ${LIMITS.mesh.sourceMaxBytes} bytes)`,
  },
  body_too_large: { status: 400, message: `request body is larger than ${LIMITS.bodyMaxBytes} bytes` },
  image_too_large: {
    status: 400,
    job: true,
    message: 'the image is too large (over the base64 limit, or too many pixels to draw or trace)',
  },
  invalid_image: { status: 400, message: 'image must be a PNG or JPEG as base64' },
  invalid_kind: { status: 400, message: 'kind must be "frame", "video" or "gif"' },
  invalid_params: { status: 400, job: true, message: 'a params field is out of its range or of the wrong type' },
  invalid_args: {
    status: 400,
    job: true,
    message: "args do not fit the rendered scene's parameters (each problem is listed in `problems`)",
  },
  no_alpha: { status: 400, message: 'transparent was asked of a codec or still format that has no alpha' },
  invalid_assets: { status: 400, message: 'assets must map in-source paths to asset keys' },
  unknown_asset: { status: 400, message: 'an asset key is unknown or expired (upload the file with POST /v1/assets)' },
  bad_webhook: { status: 400, message: 'webhook.url must be an http or https URL whose host resolves' },
  webhook_not_allowed: { status: 400, message: 'webhook.url resolves to an address this service may not call' },
  bad_idempotency_key: { status: 400, message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
  invalid_rows: {
    status: 400,
    message: 'rows must be a non-empty array of {args?, name?, params?} whose names are unique in the batch',
  },
  too_many_rows: { status: 400, message: 'a batch has more rows than BATCH_MAX_ROWS allows' },
  too_much_work: { status: 400, message: 'the job could not finish inside the job time limit (JOB_TIMEOUT_MS)' },
  output_too_large: {
    status: 400,
    message: 'the output would be larger than the whole output storage budget (OUTPUT_MAX_BYTES)',
  },
  not_an_image: { status: 400, job: true, message: 'the bytes are not an image this operation reads' },
  // 400: uploads (POST /v1/assets)
  no_file: { status: 400, message: 'expected a multipart/form-data body with at least one file' },
  too_many_files: { status: 400, message: `at most ${LIMITS.assets.maxFiles} files per upload` },
  file_too_large: { status: 400, message: `a file is larger than ${LIMITS.assets.maxFileBytes} bytes` },
  bad_multipart: { status: 400, message: 'malformed multipart/form-data body' },
  // 400: what the framework refuses before a route runs
  bad_request: { status: 400, message: 'bad request' },
  bad_url: { status: 400, message: 'the request URL is malformed' },
  // other 4xx
  unauthorized: { status: 401, message: 'an API key is needed: Authorization: Bearer <key>' },
  forbidden: {
    status: 403,
    message: "refused: cmrender open answers its own page only (its Host, its origin and the URL's token)",
  },
  // the contract fixes the 404 body: `error` is the code itself
  not_found: { status: 404, message: 'not_found' },
  method_not_allowed: { status: 405, message: 'this method is not allowed on this route' },
  not_acceptable: { status: 406, message: 'no answer of an acceptable type' },
  request_timeout: { status: 408, message: 'the request was not received within REQUEST_TIMEOUT_MS' },
  job_ended: { status: 409, message: 'the job has already ended' },
  batch_pending: {
    status: 409,
    message: 'the batch has rows still pending: its archive is made once every row has ended',
  },
  upload_too_large: { status: 413, message: 'the upload is larger than UPLOAD_MAX_BYTES' },
  unsupported_media_type: { status: 415, message: 'this content-type is not read here' },
  range_not_satisfiable: { status: 416, message: 'range_not_satisfiable' },
  idempotency_mismatch: {
    status: 422,
    message: 'this Idempotency-Key was used with a different request in the last 24 hours',
  },
  rate_limited: { status: 429, message: 'rate limit reached; retry after retry-after seconds' },
  client_queue_full: {
    status: 429,
    message:
      'this client has as many jobs waiting or rendering as MAX_QUEUED_JOBS_PER_CLIENT allows; retry when one has ended',
  },
  // 500
  internal_error: { status: 500, job: true, message: 'internal_error' },
  timeout: { status: 500, job: true, message: 'render timed out (the job limit, JOB_TIMEOUT_MS)' },
  // 503: refusals with retry-after (refusals.ts)
  queue_full: { status: 503, message: 'the render queue is full; retry later' },
  storage_full: { status: 503, job: true, message: 'storage is full; retry later' },
  storage_unavailable: {
    status: 503,
    job: true,
    message: 'the storage of outputs and assets cannot be reached; retry later',
  },
  too_many_uploads: { status: 503, message: 'too many uploads at once; retry shortly' },
  too_many_tests: { status: 503, message: 'too many GET /test renders at once; retry shortly' },
  shutting_down: { status: 503, message: 'the service is shutting down; retry shortly' },
  starting: { status: 503, message: 'the service is starting (the renderer is warming up); retry shortly' },
  renderer_unavailable: { status: 503, job: true, message: 'the renderer cannot draw now; retry later' },
  redis_unavailable: { status: 503, message: 'the job store (Redis) cannot be reached now; retry shortly' },
  overloaded: { status: 503, message: 'the service is overloaded; retry shortly' },
  editor_not_built: { status: 503, message: 'the editor is not built: run npm run build' },
  // a job's own end (its record's `code`; a compile failure's is its diagnostic code instead)
  cancelled: { job: true, message: 'cancelled by the client' },
  interrupted: { job: true, message: 'render interrupted: the service stopped while this job was rendering' },
  job_lost: { job: true, message: 'render failed: the queue lost the job (Redis restarted without its data?)' },
  // a render stage's failure: a job's code, and GET /test's and the runner's 500 (a failed job reads as 500 too)
  encoder_failed: { status: 500, job: true, message: 'render failed: the encoder (ffmpeg) failed' },
  page_crashed: { status: 500, job: true, message: 'render failed: the browser crashed during the render' },
  page_failed: { status: 500, job: true, message: 'render failed: the drawing page could not draw a frame' },
  out_of_memory: {
    status: 500,
    job: true,
    message: 'render failed: the job needs more memory than the service has',
  },
  video_incomplete: { job: true, message: 'render failed: a chunk of the video is missing or short' },
  work_budget: { job: true, message: "the scene needs more evaluation than the job's work budget" },
  memory_budget: {
    job: true,
    message:
      "render failed: a frame's value is over the byte budget of one frame (EVL013), or its evaluation needed more memory than a job's evaluation thread has",
  },
  frame_budget: {
    job: true,
    message: 'render failed: one frame took over the per-frame budget to draw (FRAME_BUDGET_MS)',
  },
  // a job's end in the export library (src/export), also the CLI's errors
  bad_params: { job: true, message: 'a parameter is out of its range' },
  bad_svg: { job: true, message: 'not an SVG document, malformed XML, or coordinates that are not finite numbers' },
  empty_svg: { job: true, message: 'the SVG has nothing to extrude (no shape, no stroke, or no area)' },
  too_many_vertices: { job: true, message: 'the solid would have more vertices than the export limit' },
  empty_mesh: { job: true, message: 'nothing to write: the geometry has no triangle of non-zero area' },
  bad_image: { job: true, message: 'the PNG or JPEG does not decode (truncated or corrupt)' },
  empty_drawing: { job: true, message: 'the image traced to no line at all' },
} as const satisfies Record<string, ErrorCodeEntry>;

type Registry = typeof REGISTRY;
export type ErrorCode = keyof Registry;
/** The codes an HTTP answer with status S carries. */
export type CodeOfStatus<S extends ErrorStatus> = {
  [K in ErrorCode]: Registry[K] extends { status: S } ? K : never;
}[ErrorCode];
/** The codes an HTTP answer carries, whatever its status. */
export type AnswerCode = CodeOfStatus<ErrorStatus>;
/** The codes a job can end with (besides a compile failure's diagnostic code). */
export type JobFailureCode = { [K in ErrorCode]: Registry[K] extends { job: true } ? K : never }[ErrorCode];

/** Every registered code and its entry. */
export const ERROR_CODES: { readonly [K in ErrorCode]: ErrorCodeEntry } = REGISTRY;

/** Each code by its own name: a call site writes `CODE.queue_full`, never the string. */
export const CODE = Object.freeze(Object.fromEntries(Object.keys(REGISTRY).map((c) => [c, c]))) as {
  readonly [K in ErrorCode]: K;
};

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(REGISTRY, code);
}

/** The HTTP status of an answer with this code. */
export function statusOf(code: AnswerCode): ErrorStatus {
  return REGISTRY[code].status;
}

/** The registered sentence of a code. */
export function messageOf(code: ErrorCode): string {
  return REGISTRY[code].message;
}

/** The ErrorEnvelope `{error, code}`: the given sentence, else the registered one. */
export function envelope<C extends ErrorCode>(code: C, message?: string): { error: string; code: C } {
  return { error: message ?? REGISTRY[code].message, code };
}

/** The codes a job can end with, in the registry's order. */
export const JOB_FAILURE_CODES = (Object.keys(REGISTRY) as ErrorCode[]).filter(
  (c): c is JobFailureCode => ERROR_CODES[c].job === true,
);

/** `a`, `b` or `c`: codes as the documents name them. */
export function codeList(codes: readonly ErrorCode[]): string {
  const quoted = codes.map((c) => `\`${c}\``);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/** Markdown table cell text: a `|` would end the cell, a `<key>` would be read as HTML. */
const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** docs/api.md's table of error codes (test/contract/error-codes.test.ts checks that docs/api.md holds it). */
export function errorCodeTable(): string {
  const rows = (Object.entries(REGISTRY) as [ErrorCode, ErrorCodeEntry][]).map(
    ([code, e]) => `| \`${code}\` | ${e.status ?? '—'} | ${e.job ? 'yes' : ''} | ${cell(e.message)} |`,
  );
  return ["| Code | HTTP status | A job's `code` | What it says |", '|---|---|---|---|', ...rows].join('\n');
}
