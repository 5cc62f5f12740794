// POST /v1/check compiles without rendering and answers the same Diagnostic a job's compile failure carries
// (jobs.ts), so a client reads both alike.
import { z } from 'zod';
import { Source } from './sources.js';
import { Diagnostic } from './jobs.js';

export const CheckRequest = z.object({ source: Source }).meta({ id: 'CheckRequest' });

export const CheckResponse = z
  .object({ ok: z.boolean(), diagnostics: z.array(Diagnostic) })
  .passthrough()
  .meta({ id: 'CheckResponse' });
