// POST /v1/render, POST /v1/frame, GET /v1/jobs/{id}
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { EnqueueResponse, FrameRequest, JobError, JobIdParams, JobPending, JobReady, RenderRequest } from '../schemas.js';
import { LIMITS } from '../../contract/limits.js';
import type { JobService } from '../jobs/job-service.js';
import type { AssetStore } from '../asset-store.js';
import { sendRefusal } from '../durability/admission.js';
import { badRequest } from '../http/http-error.js';
import { badRequestAnswer, errorAnswer, json, refusalAnswer } from '../http/responses.js';

export interface JobRoutesOptions {
  jobs: JobService;
  assets: AssetStore;
}

const ENQUEUE = [
  { kind: 'video', url: '/v1/render', operationId: 'render', summary: 'Render an MP4 video', body: RenderRequest },
  { kind: 'frame', url: '/v1/frame', operationId: 'frame', summary: 'Render one PNG frame', body: FrameRequest },
] as const;

const BAD_REQUEST = ['bad_json', 'missing_source', 'source_too_large', 'body_too_large', 'invalid_params', 'invalid_assets', 'unknown_asset'];

export const jobRoutes: FastifyPluginAsyncZod<JobRoutesOptions> = async (app, { jobs, assets }) => {
  for (const { kind, url, operationId, summary, body } of ENQUEUE) {
    const schema = {
      summary,
      operationId,
      description: `Queues a ${kind} job and answers at once. JSON is parsed whatever the content-type. Poll GET /v1/jobs/{id} (every ${LIMITS.pollIntervalMs / 1000} s is recommended).`,
      body,
      response: {
        202: json(EnqueueResponse, `Queued; \`kind\` = \`${kind}\`.`),
        400: badRequestAnswer(BAD_REQUEST),
        503: refusalAnswer(['queue_full', 'storage_full', 'shutting_down']),
      },
    };
    // the body has passed its schema before the handler runs: validation comes before admission
    app.post(url, { schema }, async (req, reply) => {
      const assetMap = await knownAssets(assets, req.body.assets);
      const refusal = jobs.admission();
      if (refusal) return sendRefusal(reply, refusal);
      const rec = await jobs.create(kind, req.body.source, { ...req.body.params }, assetMap);
      return reply.code(202).send({ job_id: rec.job_id, status: 'pending', kind });
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
          200: json(z.discriminatedUnion('status', [JobPending, JobReady]), 'Pending or ready.'),
          404: errorAnswer('Unknown job id: `{"error": "not_found"}`.'),
          500: json(JobError, 'The job ended in error.'),
        },
      },
    },
    async (req, reply) => {
      const rec = await jobs.get(req.params.id);
      if (!rec) return reply.code(404).send({ error: 'not_found' });
      const view = jobs.view(rec);
      reply.header('cache-control', 'no-store');
      return view.status === 'error' ? reply.code(500).send(view) : reply.code(200).send(view);
    },
  );
};

/** The request's asset map, once every key is known to the asset store (else 400 unknown_asset). */
async function knownAssets(assets: AssetStore, map: Record<string, string> | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [path, key] of Object.entries(map ?? {})) {
    if (!(await assets.exists(key))) throw badRequest('unknown_asset', `assets["${path}"]: unknown asset key "${key}" (upload the file with POST /v1/assets)`);
    out[path] = key;
  }
  return out;
}
