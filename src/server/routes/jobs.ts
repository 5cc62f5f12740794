// POST /v1/render, POST /v1/frame, GET /v1/jobs/{id}, DELETE /v1/jobs/{id}
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  EnqueueHeaders,
  EnqueueResponse,
  FrameRequest,
  GifRequest,
  MeshRequest,
  RenderRequest,
  VectorizeRequest,
} from '../http/schemas/enqueue.js';
import { JobError, JobIdParams, JobPending, JobReady, type JobKind } from '../http/schemas/jobs.js';
import { vectorizeInput } from './vectorize-input.js';
import { LIMITS } from '../../contract/limits.js';
import { sameUrlPaths } from '../../contract/asset-path.js';
import type { JobService } from '../jobs/job-service.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { JobParams, WebhookState } from '../jobs/store/port.js';

/** Cache-Control directives that ask for a fresh render (RFC 9111: no-cache; no-store is taken the same way). */
const NO_CACHE = /(^|[\s,])no-(cache|store)\b/i;
import { journalUnwritable, Refused, storageUnavailable } from '../durability/admission.js';
import { sendRefusal } from '../http/refusal-reply.js';
import { StorageUnavailable } from '../storage/storage.js';
import { isNoSpace } from '../../contract/no-space.js';
import { badRequest, httpError, NOT_FOUND } from '../http/http-error.js';
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
import { requestHash, type IdempotencyKeys } from '../http/idempotency.js';
import { mayReach, scopedIdempotencyKey } from '../http/tenancy.js';
import { pollAfterSeconds } from '../http/poll-hint.js';
import { WebhookRefused, type WebhookPolicy } from '../webhooks/address-policy.js';
import type { ClientQuota } from '../jobs/client-quota.js';

export interface JobRoutesOptions {
  jobs: JobService;
  /** MAX_QUEUED_JOBS_PER_CLIENT (embedded mode), else null */
  quota: ClientQuota | null;
  assets: AssetStore;
  webhookPolicy: WebhookPolicy;
  idempotency: IdempotencyKeys;
}

const G = LIMITS.gif;
const EXAMPLE_SOURCE =
  'runner "0.0.3";\nuse std.shapes.*;\nscene quick() -> Frame {\n  compose [rect(width: 300px, height: 300px, fill: #ff3399)]\n}\n';
const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><path d="M10 10 H90 V90 H10 Z"/></svg>';

/** The enqueueing routes: each kind's URL, body schema, example and what it adds (the rest is shared). */
const ENQUEUE = [
  {
    kind: 'video',
    url: '/v1/render',
    operationId: 'render',
    summary: 'Render a video (MP4, WebM or MOV)',
    body: RenderRequest,
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { duration: 2, fps: 30, width: 1280 } },
    extra: '',
  },
  {
    kind: 'frame',
    url: '/v1/frame',
    operationId: 'frame',
    summary: 'Render one frame (PNG, JPEG or WebP)',
    body: FrameRequest,
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { at: 0.5 } },
    extra: '',
  },
  {
    kind: 'gif',
    url: '/v1/gif',
    operationId: 'gif',
    summary: 'Render a GIF (looping for ever unless `loop` says otherwise)',
    body: GifRequest,
    tag: 'render',
    bodyExample: { source: EXAMPLE_SOURCE, params: { duration: 2, fps: 15, width: 480 } },
    extra: `One palette per clip (ffmpeg palettegen/paletteuse), the same frames as the MP4. Limits: fps ${G.fps.min}..${G.fps.max} (default ${G.fps.default}), duration ${G.duration.min}..${G.duration.max} s, width/height ${G.width.min}..${G.width.max} (default ${G.width.default} wide, the height by the scene's aspect); \`loop\` 0 (for ever) or the times it plays, \`colors\` the palette's size. Output \`image/gif\`. `,
  },
  {
    kind: 'mesh',
    url: '/v1/mesh',
    operationId: 'mesh',
    summary: 'Extrude an SVG into a binary glTF mesh',
    body: MeshRequest,
    tag: 'export',
    bodyExample: { source: EXAMPLE_SVG, params: { depth: 20, size: 100, round: 0 } },
    extra: `\`source\` is an SVG document of at most ${LIMITS.mesh.sourceMaxBytes} bytes, extruded as the viewer's \`svg()\` does: \`size\` tall, \`depth\` thick, centred. Output \`model/gltf-binary\` (.glb: positions, normals, indices). A malformed SVG ends the job in error with \`code\` \`bad_svg\`, one with nothing to extrude with \`empty_svg\`, one over the vertex cap with \`too_many_vertices\`. `,
  },
  {
    kind: 'vectorize',
    url: '/v1/vectorize',
    operationId: 'vectorize',
    summary: 'Trace a raster line drawing into a centreline SVG',
    body: VectorizeRequest,
    tag: 'export',
    bodyExample: {
      source: '/img/sketch.png',
      assets: { '/img/sketch.png': 'asset_0123456789abcdef0123456789abcdef' },
      params: { strokeWidth: 4, threshold: 0.5 },
    },
    extra: `A PNG or JPEG line drawing (dark ink on light paper), either \`source\` = an in-source path with \`assets\` mapping it to an uploaded key, or \`image\` = the image as base64 (at most ${LIMITS.vectorize.imageMaxBase64Chars} characters; the body may be up to ${LIMITS.vectorize.bodyMaxBytes} bytes here). Output \`image/svg+xml\`: one path of polylines with a uniform stroke width, usable as the \`source\` of POST /v1/mesh. Bytes that are not a PNG or JPEG: 400 \`not_an_image\`. A drawing with no line ends the job in error with \`code\` \`empty_drawing\`. `,
  },
] as const;

/** The URLs that queue a job (the metrics count their refusals). */
export const ENQUEUE_URLS: ReadonlySet<string> = new Set(ENQUEUE.map((e) => e.url));

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
const DRAWN = [...BAD_REQUEST.slice(0, 7), CODE.too_much_work, CODE.output_too_large, ...BAD_REQUEST.slice(7)];
/** a video or frame may ask for transparency of a codec or format without alpha: no_alpha */
const WITH_ALPHA = [...DRAWN.slice(0, 5), CODE.no_alpha, ...DRAWN.slice(5)];
const BAD_REQUEST_OF: Record<JobKind, CodeOfStatus<400>[]> = {
  video: WITH_ALPHA,
  frame: WITH_ALPHA,
  gif: DRAWN,
  mesh: BAD_REQUEST.filter((c) => c !== CODE.invalid_assets && c !== CODE.unknown_asset),
  vectorize: [...BAD_REQUEST, CODE.image_too_large, CODE.invalid_image, CODE.not_an_image],
};

/** Where a job is polled: the `Location` of its 202. */
export const jobPath = (id: string) => `/v1/jobs/${id}`;

const EXAMPLE_ID = '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90';
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

export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (
  app,
  { jobs, assets, webhookPolicy, idempotency, quota },
) => {
  // the asset map as the client sent it: validation re-shapes records and would drop an in-source path "__proto__"
  const sentAssets = new WeakMap<object, unknown>();
  app.addHook('preValidation', async (req) => {
    const b = req.body as { assets?: unknown } | null | undefined;
    if (b && typeof b === 'object' && b.assets && typeof b.assets === 'object') sentAssets.set(req, b.assets);
  });
  for (const { kind, url, operationId, summary, body, bodyExample, extra, tag } of ENQUEUE) {
    const schema = {
      summary,
      operationId,
      tags: [tag],
      description:
        extra +
        `Queues a ${kind} job and answers at once. JSON is parsed whatever the content-type. Poll the \`Location\` (GET /v1/jobs/{id}) as its \`Retry-After\` says, or follow GET /v1/jobs/{id}/events, or pass a \`webhook\`. ` +
        `An \`Idempotency-Key\` header makes a retried POST safe: the same key and body within 24 hours answer the same job.`,
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
          '`idempotency_mismatch`: the `Idempotency-Key` was used with a different request in the last 24 hours.',
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
    // the body has passed its schema before the handler runs: validation comes before admission
    // a vectorize body may carry 12 MiB of base64; every other body stays under the service's 1 MiB
    const bodyLimit = kind === 'vectorize' ? LIMITS.vectorize.bodyMaxBytes : undefined;
    app.post(url, { schema, bodyLimit }, async (req, reply) => {
      const create = async (): Promise<string> => {
        const b = req.body as {
          source?: string;
          image?: string;
          params?: Record<string, number | boolean>;
          assets?: Record<string, string>;
          webhook?: { url: string; secret?: string };
        };
        const assetMap = await knownAssets(
          assets,
          (sentAssets.get(req) as Record<string, string> | undefined) ?? b.assets,
        );
        const webhook = await checkedWebhook(webhookPolicy, b.webhook);
        const storage = await jobs.storageRefusal();
        if (storage) throw new Refused(storage);
        const early = jobs.admission();
        if (early) throw new Refused(early);
        // vectorize: the image is checked by its bytes and an inline one is stored as an asset (the journal keeps keys)
        const input =
          kind === 'vectorize' ? await vectorizeInput(assets, b, assetMap) : { source: b.source!, assets: assetMap };
        // params.cache says how to answer, not what to draw: the record keeps the params without it
        const { cache, ...params } = (b.params ?? {}) as JobParams & { cache?: boolean };
        const useCache = cache !== false && !NO_CACHE.test(String(req.headers['cache-control'] ?? ''));
        const work = await jobs.estimate(kind, input.source, params, input.assets);
        if (work.tooLarge) throw badRequest(CODE.output_too_large, work.tooLarge);
        if (work.full) throw new Refused(work.full);
        if (work.refusal) throw badRequest(CODE.too_much_work, work.refusal);
        // no await between this check and create: the queue cap is exact under concurrent requests
        const refusal = jobs.admission();
        if (refusal) throw new Refused(refusal);
        const client = req.apiKeyId ? `key:${req.apiKeyId}` : `ip:${req.ip}`;
        if (quota && !quota.take(client)) {
          // when one of them ends is not known here: a poll's pace
          reply.header('retry-after', '5');
          throw httpError(
            CODE.client_queue_full,
            `this client has ${quota.max} jobs waiting or rendering (MAX_QUEUED_JOBS_PER_CLIENT); retry when one has ended`,
          );
        }
        // the place is bound to the job before it is stored: a job that ends at once (a cache hit ends inside
        // create) gives it back like any other
        let bound: string | undefined;
        try {
          const rec = await jobs.create(
            kind,
            input.source,
            params,
            input.assets,
            {
              webhook,
              idempotency: key ? { key, hash } : undefined,
              cache: useCache,
              ...(req.apiKeyId ? { owner: req.apiKeyId } : {}),
              onId: (id) => {
                bound = id;
                quota?.bind(client, id);
              },
            },
            work,
          );
          return rec.job_id;
        } catch (err) {
          if (quota) {
            if (bound === undefined) quota.giveBack(client);
            else quota.release(bound);
          }
          // the journal could not take the record: nothing was queued, the client may retry once space returns
          if (isNoSpace(err)) throw new Refused(journalUnwritable());
          throw err;
        }
      };
      const sent = req.headers['idempotency-key'];
      const key = sent ? scopedIdempotencyKey(sent, req) : undefined;
      const hash = key ? requestHash(url, req.body) : '';
      let jobId: string;
      try {
        jobId = key
          ? (await idempotency.claim(key, hash, create, async (id) => (await jobs.get(id)) !== undefined)).jobId
          : await create();
      } catch (err) {
        if (err instanceof Refused) return sendRefusal(reply, err.refusal);
        // the assets could not be checked or stored (STORAGE_URL's bucket is down): nothing was queued
        if (err instanceof StorageUnavailable) return sendRefusal(reply, storageUnavailable());
        throw err;
      }
      return reply
        .code(202)
        .header('location', jobPath(jobId))
        .send({ job_id: jobId, status: 'pending', kind: kind as JobKind });
    });
  }

  app.get(
    '/v1/jobs/:id',
    {
      schema: {
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
      },
    },
    async (req, reply) => {
      const rec = await jobs.get(req.params.id);
      if (!rec || !mayReach(rec.owner, req)) return reply.code(404).send(NOT_FOUND);
      const view = jobs.view(rec);
      reply.header('cache-control', 'no-store');
      const after = pollAfterSeconds(view);
      if (after !== undefined) reply.header('retry-after', String(after));
      return view.status === 'error' ? reply.code(500).send(view) : reply.code(200).send(view);
    },
  );

  app.delete(
    '/v1/jobs/:id',
    {
      schema: {
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
      },
    },
    async (req, reply) => {
      const r = await jobs.cancel(req.params.id, (rec) => mayReach(rec.owner, req));
      if (r.ok)
        return reply
          .code(200)
          .header('cache-control', 'no-store')
          .send(jobs.view(r.rec) as z.infer<typeof JobError>);
      if (r.reason === 'not_found') return reply.code(404).send(NOT_FOUND);
      throw httpError(CODE.job_ended, `the job has already ended (${r.rec?.status})`);
    },
  );
};

/** The request's asset map, once every key is known to the asset store (else 400 unknown_asset). */
async function knownAssets(
  assets: AssetStore,
  map: Record<string, string> | undefined,
): Promise<Record<string, string>> {
  const out: [string, string][] = [];
  // two paths the page loads as one URL: the picture drawn would depend on the map's order, so neither is guessed
  const twice = sameUrlPaths(Object.keys(map ?? {}));
  if (twice)
    throw badRequest(
      CODE.invalid_assets,
      `assets["${twice[0]}"] and assets["${twice[1]}"] name one image (the page loads both as ${twice[2]}): map it once`,
    );
  const known = new Set<string>();
  for (const [path, key] of Object.entries(map ?? {})) {
    if (known.has(key)) {
      out.push([path, key]);
      continue;
    }
    known.add(key);
    if (!(await assets.exists(key)))
      throw badRequest(
        CODE.unknown_asset,
        `assets["${path}"]: unknown asset key "${key}" (upload the file with POST /v1/assets)`,
      );
    out.push([path, key]);
  }
  // in-source paths are keys, never properties (Object.fromEntries defines "__proto__" as an own key)
  return Object.fromEntries(out);
}

/** The webhook to store, once its host resolves to addresses this service may call (else 400 with the reason's code). */
async function checkedWebhook(
  policy: WebhookPolicy,
  hook: { url: string; secret?: string } | undefined,
): Promise<WebhookState | undefined> {
  if (!hook) return undefined;
  try {
    await policy.check(hook.url);
  } catch (err) {
    if (err instanceof WebhookRefused) throw badRequest(err.code, err.message);
    throw err;
  }
  return hook.secret ? { url: hook.url, secret: hook.secret } : { url: hook.url };
}
