// POST /v1/render, POST /v1/frame, GET /v1/jobs/{id}
import type { FastifyInstance } from 'fastify';
import { FrameRequest, HttpError, RenderRequest, validateBody, type JobKind } from '../schemas.js';
import { UUID_RE } from '../../contract/limits.js';
import type { JobService } from '../jobs/job-service.js';
import type { AssetStore } from '../asset-store.js';
import type { JobParams } from '../jobs/store.js';
import { sendRefusal } from '../durability/admission.js';

export async function checkAssetKeys(assets: AssetStore, map: Record<string, string> | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [path, key] of Object.entries(map ?? {})) {
    if (!(await assets.exists(key))) throw new HttpError(400, 'unknown_asset', `assets["${path}"]: unknown asset key "${key}" (upload the file with POST /v1/assets)`);
    out[path] = key;
  }
  return out;
}

export function jobRoutes(app: FastifyInstance, jobs: JobService, assets: AssetStore): void {
  const enqueue = (kind: JobKind) => async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    const body = kind === 'video' ? validateBody(RenderRequest, req.body) : validateBody(FrameRequest, req.body);
    const assetMap = await checkAssetKeys(assets, body.assets);
    const refusal = jobs.admission();
    if (refusal) return sendRefusal(reply, refusal);
    const params: JobParams = { ...(body.params ?? {}) };
    const rec = await jobs.create(kind, body.source, params, assetMap);
    return reply.code(202).send({ job_id: rec.job_id, status: 'pending', kind });
  };
  app.post('/v1/render', enqueue('video'));
  app.post('/v1/frame', enqueue('frame'));

  app.get<{ Params: { id: string } }>('/v1/jobs/:id', async (req, reply) => {
    const { id } = req.params;
    const rec = UUID_RE.test(id) ? await jobs.get(id) : undefined;
    if (!rec) return reply.code(404).send({ error: 'not_found' });
    const view = jobs.view(rec);
    return reply.code(view.status === 'error' ? 500 : 200).header('cache-control', 'no-store').send(view);
  });
}
