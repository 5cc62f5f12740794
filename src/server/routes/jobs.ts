// POST /v1/render, POST /v1/frame, GET /v1/jobs/{id}, DELETE /v1/jobs/{id}
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { EnqueueHeaders, EnqueueResponse, FrameRequest, JobError, JobIdParams, JobPending, JobReady, RenderRequest, type JobKind } from '../schemas.js';
import { LIMITS } from '../../contract/limits.js';
import type { JobService } from '../jobs/job-service.js';
import type { AssetStore } from '../asset-store.js';
import type { WebhookState } from '../jobs/store.js';
import { journalUnwritable, sendRefusal } from '../durability/admission.js';
import { isNoSpace } from '../../contract/no-space.js';
import { badRequest, HttpError } from '../http/http-error.js';
import { badRequestAnswer, errorAnswer, json, refusalAnswer } from '../http/responses.js';
import { IdempotencyIndex, requestHash } from '../http/idempotency.js';
import { pollAfterSeconds } from '../http/poll-hint.js';
import { WebhookRefused, type WebhookPolicy } from '../webhooks/address-policy.js';

export interface JobRoutesOptions {
  jobs: JobService;
  assets: AssetStore;
  webhookPolicy: WebhookPolicy;
  idempotency: IdempotencyIndex;
}

const ENQUEUE = [
  { kind: 'video', url: '/v1/render', operationId: 'render', summary: 'Render an MP4 video', body: RenderRequest },
  { kind: 'frame', url: '/v1/frame', operationId: 'frame', summary: 'Render one PNG frame', body: FrameRequest },
] as const;

const BAD_REQUEST = ['bad_json', 'missing_source', 'source_too_large', 'body_too_large', 'invalid_params', 'invalid_assets', 'unknown_asset', 'too_much_work', 'bad_webhook', 'webhook_not_allowed', 'bad_idempotency_key'];

/** Where a job is polled: the `Location` of its 202. */
export const jobPath = (id: string) => `/v1/jobs/${id}`;

const EXAMPLE_ID = '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90';
const LOCATION_HEADER = { location: { description: 'Added: the job\'s URL, `/v1/jobs/{job_id}`.', type: 'string', examples: [`/v1/jobs/${EXAMPLE_ID}`] } };
const RETRY_AFTER_HEADER = {
  'retry-after': { description: 'Added, pending jobs only: seconds to wait before polling again (1 or 2 while rendering; 2 per job ahead while waiting, at most 30).', type: 'integer', minimum: 1, examples: [2] },
};

export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (app, { jobs, assets, webhookPolicy, idempotency }) => {
  // the asset map as the client sent it: validation re-shapes records and would drop an in-source path "__proto__"
  const sentAssets = new WeakMap<object, unknown>();
  app.addHook('preValidation', async (req) => {
    const b = req.body as { assets?: unknown } | null | undefined;
    if (b && typeof b === 'object' && b.assets && typeof b.assets === 'object') sentAssets.set(req, b.assets);
  });
  for (const { kind, url, operationId, summary, body } of ENQUEUE) {
    const schema = {
      summary,
      operationId,
      description:
        `Queues a ${kind} job and answers at once. JSON is parsed whatever the content-type. Poll the \`Location\` (GET /v1/jobs/{id}) as its \`Retry-After\` says, or follow GET /v1/jobs/{id}/events, or pass a \`webhook\`. ` +
        `An \`Idempotency-Key\` header makes a retried POST safe: the same key and body within 24 hours answer the same job.`,
      headers: EnqueueHeaders,
      body,
      response: {
        202: {
          ...json(EnqueueResponse, `Queued; \`kind\` = \`${kind}\`. With an \`Idempotency-Key\` seen before (same body): the same job again.`, { job_id: EXAMPLE_ID, status: 'pending', kind }),
          headers: LOCATION_HEADER,
        },
        400: badRequestAnswer(BAD_REQUEST),
        422: errorAnswer('`idempotency_mismatch`: the `Idempotency-Key` was used with a different request in the last 24 hours.', {
          error: 'this Idempotency-Key was used with a different request in the last 24 hours',
          code: 'idempotency_mismatch',
        }),
        503: refusalAnswer(['queue_full', 'storage_full', 'shutting_down']),
      },
    };
    // the body has passed its schema before the handler runs: validation comes before admission
    app.post(url, { schema }, async (req, reply) => {
      const create = async (): Promise<string> => {
        const assetMap = await knownAssets(assets, (sentAssets.get(req) as Record<string, string> | undefined) ?? req.body.assets);
        const webhook = await checkedWebhook(webhookPolicy, req.body.webhook);
        const storage = await jobs.storageRefusal();
        if (storage) throw new Refused(storage);
        const { source, params } = req.body;
        const work = jobs.estimate(kind, source, { ...params }, assetMap);
        if (work.refusal) throw badRequest('too_much_work', work.refusal);
        // no await between admission and create: the queue cap is exact under concurrent requests
        const refusal = jobs.admission();
        if (refusal) throw new Refused(refusal);
        try {
          const rec = await jobs.create(kind, source, { ...params }, assetMap, { webhook, idempotency: key ? { key, hash } : undefined }, work.seconds);
          return rec.job_id;
        } catch (err) {
          // the journal could not take the record: nothing was queued, the client may retry once space returns
          if (isNoSpace(err)) throw new Refused(journalUnwritable());
          throw err;
        }
      };
      const key = req.headers['idempotency-key'];
      const hash = key ? requestHash(url, req.body) : '';
      let jobId: string;
      try {
        jobId = key ? (await idempotency.claim(key, hash, create)).jobId : await create();
      } catch (err) {
        if (err instanceof Refused) return sendRefusal(reply, err.refusal);
        throw err;
      }
      return reply.code(202).header('location', jobPath(jobId)).send({ job_id: jobId, status: 'pending', kind: kind as JobKind });
    });
  }

  app.get(
    '/v1/jobs/:id',
    {
      schema: {
        summary: 'Poll a job',
        operationId: 'getJob',
        params: JobIdParams,
        response: {
          200: { ...json(z.discriminatedUnion('status', [JobPending, JobReady]), 'Pending (with `Retry-After`) or ready.'), headers: RETRY_AFTER_HEADER },
          404: errorAnswer('Unknown job id: `{"error": "not_found"}`.'),
          500: json(JobError, 'The job ended in error (a cancelled job: `code` = `cancelled`).'),
        },
      },
    },
    async (req, reply) => {
      const rec = await jobs.get(req.params.id);
      if (!rec) return reply.code(404).send({ error: 'not_found' });
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
        description:
          'Added. Ends a pending or rendering job in `error` with `code` = `cancelled` (GET answers it with 500 from then on, like every failed job). A rendering job is stopped, its page and encoder freed and its partial file removed before this answers.',
        params: JobIdParams,
        response: {
          200: json(JobError, 'Cancelled: the job\'s final view.', {
            job_id: EXAMPLE_ID,
            kind: 'video',
            status: 'error',
            created_at: 1764000000000,
            completed_at: 1764000002500,
            message: 'cancelled by the client',
            code: 'cancelled',
          }),
          404: errorAnswer('Unknown job id: `{"error": "not_found"}`.'),
          409: errorAnswer('`job_ended`: the job had already ended (ready or error); nothing changed.', { error: 'the job has already ended (ready)', code: 'job_ended' }),
        },
      },
    },
    async (req, reply) => {
      const r = await jobs.cancel(req.params.id);
      if (r.ok) return reply.code(200).header('cache-control', 'no-store').send(jobs.view(r.rec) as z.infer<typeof JobError>);
      if (r.reason === 'not_found') return reply.code(404).send({ error: 'not_found' });
      throw new HttpError(409, { error: `the job has already ended (${r.rec?.status})`, code: 'job_ended' });
    },
  );
};

/** A 503 from admission, carried out of the idempotent creation to be answered with its retry-after. */
class Refused extends Error {
  constructor(readonly refusal: NonNullable<ReturnType<JobService['admission']>>) {
    super(refusal.error);
  }
}

/** The request's asset map, once every key is known to the asset store (else 400 unknown_asset). */
async function knownAssets(assets: AssetStore, map: Record<string, string> | undefined): Promise<Record<string, string>> {
  const out: [string, string][] = [];
  for (const [path, key] of Object.entries(map ?? {})) {
    if (!(await assets.exists(key))) throw badRequest('unknown_asset', `assets["${path}"]: unknown asset key "${key}" (upload the file with POST /v1/assets)`);
    out.push([path, key]);
  }
  // in-source paths are keys, never properties (Object.fromEntries defines "__proto__" as an own key)
  return Object.fromEntries(out);
}

/** The webhook to store, once its host resolves to addresses this service may call (else 400 with the reason's code). */
async function checkedWebhook(policy: WebhookPolicy, hook: { url: string; secret?: string } | undefined): Promise<WebhookState | undefined> {
  if (!hook) return undefined;
  try {
    await policy.check(hook.url);
  } catch (err) {
    if (err instanceof WebhookRefused) throw badRequest(err.code, err.message);
    throw err;
  }
  return hook.secret ? { url: hook.url, secret: hook.secret } : { url: hook.url };
}
