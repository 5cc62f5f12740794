// GET /v1/jobs/{id} (poll a job: its public view, `Retry-After` while pending, 500 once ended in error) and
// DELETE /v1/jobs/{id} (cancel it). A job another API key made is not found (http/tenancy.ts). What the document
// says of these routes is routes/job-openapi.ts's.
import type { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobError } from '../../contract/job-view.js';
import { CODE } from '../../contract/error-codes.js';
import type { JobService } from '../jobs/job-service.js';
import { httpError, notFoundKept } from '../http/http-error.js';
import { mayReach } from '../http/tenancy.js';
import { pollAfterSeconds } from '../http/poll-hint.js';
import { CANCEL_JOB_SCHEMA, GET_JOB_SCHEMA } from './job-openapi.js';

/** `keptMs`: how long jobs and outputs are kept (RETENTION_MS), which a 404 says. */
export const jobStatusRoutes: FastifyPluginAsyncZod<{ jobs: JobService; keptMs: number }> = async (
  app,
  { jobs, keptMs },
) => {
  const gone = (id: string) => notFoundKept(`job ${id}`, keptMs);
  app.get('/v1/jobs/:id', { schema: GET_JOB_SCHEMA }, async (req, reply) => {
    const read = await jobs.read(req.params.id);
    if (!read || !mayReach(read.rec.owner, req)) return reply.code(404).send(gone(req.params.id));
    const { rec, view } = read;
    reply.header('cache-control', 'no-store');
    const after = pollAfterSeconds(view, rec.estimate_s);
    if (after !== undefined) reply.header('retry-after', String(after));
    return view.status === 'error' ? reply.code(500).send(view) : reply.code(200).send(view);
  });

  app.delete('/v1/jobs/:id', { schema: CANCEL_JOB_SCHEMA }, async (req, reply) => {
    const r = await jobs.cancel(req.params.id, (rec) => mayReach(rec.owner, req));
    if (r.ok)
      return reply
        .code(200)
        .header('cache-control', 'no-store')
        .send(jobs.view(r.rec) as z.infer<typeof JobError>);
    if (r.reason === 'not_found') return reply.code(404).send(gone(req.params.id));
    throw httpError(CODE.job_ended, `the job has already ended (${r.rec?.status})`);
  });
};
