// What the OpenAPI document says of the job routes (routes/enqueue.ts, routes/job-status.ts): each enqueueing kind's
// summary, prose and example body, the codes each answer may carry, the examples of a job's views and the headers
// added to the contract. Kept apart from the handlers so a route reads as what it does; the schemas it validates
// with are http/schemas/'s, and every code and sentence the registry's (contract/error-codes.ts).
import { z } from 'zod';
import { EnqueueHeaders, EnqueueResponse } from '../http/schemas/enqueue.js';
import { JobError, JobPending, JobReady } from '../../contract/job-view.js';
import type { JobKind } from '../../contract/job-kind.js';
import { JobIdParams } from '../http/schemas/jobs.js';
import { LIMITS } from '../../contract/limits.js';
import { CODE, envelope, messageOf, type CodeOfStatus } from '../../contract/error-codes.js';
import {
  badRequestAnswer,
  errorAnswer,
  json,
  notFoundAnswer,
  rateLimitedAnswer,
  refusalAnswer,
  unauthorizedAnswer,
} from '../http/responses.js';

const G = LIMITS.gif;
const EXAMPLE_SOURCE =
  'runner "0.0.3";\nuse std.shapes.*;\nscene quick() -> Frame {\n  compose [rect(width: 300px, height: 300px, fill: #ff3399)]\n}\n';
const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M10 10 H90 V90 H10 Z"/></svg>';
const EXAMPLE_ID = '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90';

/** What the document says of each enqueueing kind besides the shared prose: its operation, example and additions. */
const ENQUEUE_DOCS: Record<
  JobKind,
  { operationId: string; summary: string; tag: string; bodyExample: Record<string, unknown>; extra: string }
> = {
  video: {
    operationId: 'render',
    summary: 'Render a video (MP4, WebM or MOV)',
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { duration: 2, fps: 30, width: 1280 } },
    extra: '',
  },
  frame: {
    operationId: 'frame',
    summary: 'Render one frame (PNG, JPEG or WebP)',
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { at: 0.5 } },
    extra: '',
  },
  gif: {
    operationId: 'gif',
    summary: 'Render a GIF (looping for ever unless `loop` says otherwise)',
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { duration: 2, fps: 15, width: 480 } },
    extra: `One palette per clip (ffmpeg palettegen/paletteuse), the same frames as the MP4. Limits: fps ${G.fps.min}..${G.fps.max} (default ${G.fps.default}), duration ${G.duration.min}..${G.duration.max} s, width/height ${G.width.min}..${G.width.max} (default ${G.width.default} wide, the height by the scene's aspect); \`loop\` 0 (for ever) or the times it plays, \`colors\` the palette's size. Output \`image/gif\`. `,
  },
  mesh: {
    operationId: 'mesh',
    summary: 'Extrude an SVG into a binary glTF mesh',
    tag: 'export',
    bodyExample: { source: EXAMPLE_SVG, params: { depth: 20, size: 100, round: 0 } },
    extra: `\`source\` is an SVG document of at most ${LIMITS.mesh.sourceMaxBytes} bytes, extruded as the viewer's \`svg()\` does: \`size\` tall, \`depth\` thick, centred. Output \`model/gltf-binary\` (.glb: positions, normals, indices). A malformed SVG ends the job in error with \`code\` \`bad_svg\`, one with nothing to extrude with \`empty_svg\`, one over the vertex cap with \`too_many_vertices\`. `,
  },
  vectorize: {
    operationId: 'vectorize',
    summary: 'Trace a raster line drawing into a centreline SVG',
    tag: 'export',
    bodyExample: {
      source: '/img/sketch.png',
      assets: { '/img/sketch.png': 'asset_0123456789abcdef0123456789abcdef' },
      params: { strokeWidth: 4, threshold: 0.5 },
    },
    extra: `A PNG or JPEG line drawing (dark ink on light paper), either \`source\` = an in-source path with \`assets\` mapping it to an uploaded key, or \`image\` = the image as base64 (at most ${LIMITS.vectorize.imageMaxBase64Chars} characters; the body may be up to ${LIMITS.vectorize.bodyMaxBytes} bytes here). Output \`image/svg+xml\`: one path of polylines with a uniform stroke width, usable as the \`source\` of POST /v1/mesh. Bytes that are not a PNG or JPEG: 400 \`not_an_image\`. A drawing with no line ends the job in error with \`code\` \`empty_drawing\`. `,
  },
};

const BAD_REQUEST: CodeOfStatus<400>[] = [
  CODE.bad_json,
  CODE.missing_source,
  CODE.source_too_large,
  CODE.body_too_large,
  CODE.invalid_params,
  CODE.invalid_assets,
  CODE.unknown_asset,
  CODE.bad_webhook,
  CODE.webhook_not_allowed,
  CODE.bad_idempotency_key,
];
/**
 * what is drawn has an estimate: too_much_work when it cannot finish inside the job limit, output_too_large when its
 * output would pass the whole output budget
 */
const DRAWN = [
  ...BAD_REQUEST.slice(0, 5),
  CODE.invalid_args, // a scene's args (the drawn kinds only)
  ...BAD_REQUEST.slice(5, 7),
  CODE.too_much_work,
  CODE.output_too_large,
  ...BAD_REQUEST.slice(7),
];
/** a video or frame may ask for transparency of a codec or format without alpha: no_alpha */
const WITH_ALPHA = [...DRAWN.slice(0, 6), CODE.no_alpha, ...DRAWN.slice(6)];
const BAD_REQUEST_OF: Record<JobKind, CodeOfStatus<400>[]> = {
  video: WITH_ALPHA,
  frame: WITH_ALPHA,
  gif: DRAWN,
  mesh: BAD_REQUEST.filter((c) => c !== CODE.invalid_assets && c !== CODE.unknown_asset),
  vectorize: [...BAD_REQUEST, CODE.image_too_large, CODE.invalid_image, CODE.not_an_image],
};

const LOCATION_HEADER = {
  location: {
    description: "Added: the job's URL, `/v1/jobs/{job_id}`.",
    type: 'string',
    examples: [`/v1/jobs/${EXAMPLE_ID}`],
  },
};
const RETRY_AFTER_HEADER = {
  'retry-after': {
    description:
      'Added, pending jobs only: seconds to wait before polling again (1 or 2 while rendering; 2 per job ahead while waiting, at most 30).',
    type: 'integer',
    minimum: 1,
    examples: [2],
  },
};

/**
 * The route schema of one enqueueing kind: its body's schema with the document's prose and answers. `keyLives`: how
 * long an Idempotency-Key holds, in words (from RETENTION_MS).
 */
export function enqueueSchema<B extends z.ZodType>(kind: JobKind, body: B, keyLives: string) {
  const { operationId, summary, tag, bodyExample, extra } = ENQUEUE_DOCS[kind];
  return {
    summary,
    operationId,
    tags: [tag],
    description:
      extra +
      `Queues a ${kind} job and answers at once. JSON is parsed whatever the content-type. Poll the \`Location\` (GET /v1/jobs/{id}) as its \`Retry-After\` says, or follow GET /v1/jobs/{id}/events, or pass a \`webhook\`. ` +
      `An \`Idempotency-Key\` header makes a retried POST safe: the same key and body within ${keyLives} answer the same job.`,
    headers: EnqueueHeaders,
    body,
    bodyExample,
    response: {
      202: {
        ...json(
          EnqueueResponse,
          `Queued; \`kind\` = \`${kind}\`. With an \`Idempotency-Key\` seen before (same body): the same job again.`,
          { job_id: EXAMPLE_ID, status: 'pending', kind },
        ),
        headers: LOCATION_HEADER,
      },
      400: badRequestAnswer(BAD_REQUEST_OF[kind]),
      422: errorAnswer(
        `\`idempotency_mismatch\`: the \`Idempotency-Key\` was used with a different request in the last ${keyLives}.`,
        [CODE.idempotency_mismatch],
      ),
      401: unauthorizedAnswer(),
      429: rateLimitedAnswer([CODE.rate_limited, CODE.client_queue_full]),
      503: refusalAnswer([
        CODE.queue_full,
        CODE.storage_full,
        CODE.storage_unavailable,
        CODE.shutting_down,
        CODE.redis_unavailable,
      ]),
    },
  };
}

/** GET /v1/jobs/{id}: a pending or ready view (200), an ended-in-error one (500). */
export const GET_JOB_SCHEMA = {
  summary: 'Poll a job',
  operationId: 'getJob',
  tags: ['jobs'],
  params: JobIdParams,
  response: {
    200: {
      ...json(z.discriminatedUnion('status', [JobPending, JobReady]), 'Pending (with `Retry-After`) or ready.', {
        job_id: EXAMPLE_ID,
        kind: 'frame',
        status: 'ready',
        created_at: 1764000000000,
        completed_at: 1764000000450,
        url: `/v1/outputs/${EXAMPLE_ID}.png`,
        mime: 'image/png',
        width: 1920,
        height: 1080,
      }),
      headers: RETRY_AFTER_HEADER,
    },
    404: notFoundAnswer('Unknown job id'),
    500: json(JobError, 'The job ended in error (a cancelled job: `code` = `cancelled`).', {
      job_id: EXAMPLE_ID,
      kind: 'frame',
      status: 'error',
      created_at: 1764000000000,
      completed_at: 1764000000120,
      message: "NAM003 unknown identifier 'fgg' at line 1, column 48",
      code: 'NAM003',
      diagnostics: [{ code: 'NAM003', message: "unknown identifier 'fgg'", line: 1, column: 48 }],
    }),
    503: refusalAnswer([CODE.redis_unavailable]),
  },
};

/** DELETE /v1/jobs/{id}: the cancelled job's final view (200), or why nothing changed. */
export const CANCEL_JOB_SCHEMA = {
  summary: 'Cancel a job',
  operationId: 'cancelJob',
  tags: ['jobs'],
  description:
    'Added. Ends a pending or rendering job in `error` with `code` = `cancelled` (GET answers it with 500 from then on, like every failed job). A rendering job is stopped, its page and encoder freed and its partial file removed before this answers.',
  params: JobIdParams,
  response: {
    200: json(JobError, "Cancelled: the job's final view.", {
      job_id: EXAMPLE_ID,
      kind: 'video',
      status: 'error',
      created_at: 1764000000000,
      completed_at: 1764000002500,
      message: messageOf(CODE.cancelled),
      code: CODE.cancelled,
    }),
    401: unauthorizedAnswer(),
    404: notFoundAnswer('Unknown job id'),
    409: errorAnswer(
      '`job_ended`: the job had already ended (ready or error); nothing changed.',
      [CODE.job_ended],
      envelope(CODE.job_ended, 'the job has already ended (ready)'),
    ),
  },
};
