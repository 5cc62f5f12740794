// GET /healthz (liveness: up, or 503 with why it cannot take work) beside GET /readyz (readiness.ts): the two probes
// a load balancer or an orchestrator reads, in one place.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { JobService } from '../jobs/job-service.js';
import { refusalAnswer } from '../http/responses.js';
import { CODE } from '../../contract/error-codes.js';
import { Refused } from '../../contract/refusals.js';

export const healthRoutes: FastifyPluginAsyncZod<{ jobs: JobService }> = async (app, { jobs }) => {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Liveness',
        operationId: 'healthz',
        tags: ['service'],
        response: {
          200: {
            description: '`ok` and a newline.',
            content: { 'text/plain': { schema: z.literal('ok\n'), example: 'ok\n' } },
          },
          503: refusalAnswer([
            CODE.storage_full,
            CODE.shutting_down,
            CODE.renderer_unavailable,
            CODE.redis_unavailable,
          ]),
        },
      },
    },
    async (_req, reply) => {
      // up but unable to take work (a full disk, a journal that cannot be written, a browser that cannot draw,
      // shutting down): said with a reason
      const down = await jobs.health();
      if (down) throw new Refused(down);
      return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('ok\n');
    },
  );
};
