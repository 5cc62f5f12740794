// The job routes' own schema: the path of GET/DELETE /v1/jobs/{id} (the job's public view is the contract's,
// src/contract/job-view.ts).
import { z } from 'zod';
import { UUID_RE } from '../../../contract/limits.js';

/** The path of GET /v1/jobs/{id}. Anything else than a UUID names no job (404). */
export const JobIdParams = z.object({
  id: z.string().regex(UUID_RE).meta({ format: 'uuid', description: 'The `job_id` of a 202 answer.' }),
});
