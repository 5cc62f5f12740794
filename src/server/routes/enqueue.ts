// POST /v1/render, /v1/frame, /v1/gif, /v1/mesh, /v1/vectorize: every enqueueing kind with one handler. The body has
// passed its schema before the handler runs (validation comes before admission); the handler reads what HTTP knows of
// the sender (API key or address, Cache-Control, Idempotency-Key) and hands the rest to JobService.submit, whose
// admission sequence decides (jobs/submit.ts). What the document says of these routes is routes/job-openapi.ts's.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { FrameRequest, GifRequest, MeshRequest, RenderRequest, VectorizeRequest } from '../http/schemas/enqueue.js';
import type { JobKind } from '../../contract/job-kind.js';
import { LIMITS } from '../../contract/limits.js';
import type { JobService } from '../jobs/job-service.js';
import type { EnqueueBody, SubmitDoor } from '../jobs/submit.js';
import { requestHash } from '../jobs/idempotency.js';
import { scopedIdempotencyKey } from '../http/tenancy.js';
import { enqueueSchema } from './job-openapi.js';
import { describeDuration } from '../../contract/describe-duration.js';

export interface EnqueueRoutesOptions extends SubmitDoor {
  jobs: JobService;
  /** how long an Idempotency-Key answers the same job (min(24 hours, RETENTION_MS)), as the docs say it */
  idempotencyTtlMs: number;
}

/** Each enqueueing kind's URL and body schema (the rest is shared). */
const ENQUEUE = [
  { kind: 'video', url: '/v1/render', body: RenderRequest },
  { kind: 'frame', url: '/v1/frame', body: FrameRequest },
  { kind: 'gif', url: '/v1/gif', body: GifRequest },
  { kind: 'mesh', url: '/v1/mesh', body: MeshRequest },
  { kind: 'vectorize', url: '/v1/vectorize', body: VectorizeRequest },
] as const;

/** The URLs that queue a job (the metrics count their refusals). */
export const ENQUEUE_URLS: ReadonlySet<string> = new Set(ENQUEUE.map((e) => e.url));

/** Where a job is polled: the `Location` of its 202. */
export const jobPath = (id: string) => `/v1/jobs/${id}`;

export const enqueueRoutes: FastifyPluginAsyncZod<EnqueueRoutesOptions> = async (
  app,
  { jobs, idempotencyTtlMs, ...door },
) => {
  const keyLives = describeDuration(idempotencyTtlMs);
  // the asset map as the client sent it: validation re-shapes records and would drop an in-source path "__proto__"
  const sentAssets = new WeakMap<object, Record<string, string>>();
  app.addHook('preValidation', async (req) => {
    const b = req.body as { assets?: unknown } | null | undefined;
    if (b && typeof b === 'object' && b.assets && typeof b.assets === 'object')
      sentAssets.set(req, b.assets as Record<string, string>);
  });
  for (const { kind, url, body } of ENQUEUE) {
    // a vectorize body may carry 12 MiB of base64; every other body stays under the service's 1 MiB
    const bodyLimit = kind === 'vectorize' ? LIMITS.vectorize.bodyMaxBytes : undefined;
    app.post(url, { schema: enqueueSchema(kind, body, keyLives), bodyLimit }, async (req, reply) => {
      const sent = req.headers['idempotency-key'];
      const key = sent ? scopedIdempotencyKey(sent, req) : undefined;
      // a refusal or a 4xx is a ServiceError thrown out of submit, answered by the app's one error handler
      const jobId = await jobs.submit(
        {
          kind,
          body: req.body as EnqueueBody,
          sentAssets: sentAssets.get(req),
          cacheControl: String(req.headers['cache-control'] ?? ''),
          ...(req.apiKeyId ? { owner: req.apiKeyId } : {}),
          client: req.apiKeyId ? `key:${req.apiKeyId}` : `ip:${req.ip}`,
          ...(key ? { idempotency: { key, hash: requestHash(url, req.body) } } : {}),
        },
        door,
      );
      return reply
        .code(202)
        .header('location', jobPath(jobId))
        .send({ job_id: jobId, status: 'pending', kind: kind as JobKind });
    });
  }
};
