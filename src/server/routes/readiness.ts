// Readiness (GET /readyz), apart from liveness (/healthz, as the contract has it): 200 only while this process can
// take work now: the renderer is warm, the journal (or Redis) takes writes, the disk is not full, a bucket answers,
// the event loop is not saturated and no shutdown has begun; else 503 with the reason, in the ErrorEnvelope with `retry-after`.
// Job POSTs are not refused while the renderer warms up: /healthz answering means a POST is accepted, and the job
// waits in the queue (pending, with its place) until the renderer is ready.
//
// The event loop's delay is metrics/event-loop-delay.ts's measure (under-pressure's, without its memory read). Only
// /readyz reads it: a render that holds the loop for a while must not turn polls and downloads away; the load
// balancer sends new work elsewhere.
import type { FastifyInstance } from 'fastify';
import { EventLoopDelay } from '../metrics/event-loop-delay.js';
import { z } from 'zod';
import type { JobService } from '../jobs/job-service.js';
import { Refused, overloaded, starting, type Refusal } from '../../contract/refusals.js';
import { CODE } from '../../contract/error-codes.js';
import { refusalAnswer } from '../http/responses.js';

export interface ReadinessOptions {
  jobs: JobService;
  /** true once the renderer is warm and the recovered jobs are queued (app.warmUp) */
  warm: () => boolean;
  /** READY_MAX_EVENT_LOOP_DELAY_MS; 0: not checked */
  maxEventLoopDelayMs: number;
}

export async function watchReadiness(app: FastifyInstance, o: ReadinessOptions): Promise<void> {
  const checkLoop = o.maxEventLoopDelayMs > 0;
  const loop = new EventLoopDelay((err) => app.log.warn({ err }, 'event loop delay sample skipped'));
  if (checkLoop) {
    loop.start();
    app.addHook('onClose', async () => loop.stop());
  }

  const why = async (): Promise<Refusal | null> => {
    // a shutdown is said first: it is the reason that will not pass
    const down = await o.jobs.ready();
    if (down?.code === CODE.shutting_down) return down;
    if (!o.warm()) return starting();
    if (down) return down;
    const ms = loop.ms;
    if (checkLoop && ms > o.maxEventLoopDelayMs) {
      // a loop held through a whole sample has no measure of its delay (Infinity)
      const delay = Number.isFinite(ms) ? `${Math.round(ms)} ms` : `over ${o.maxEventLoopDelayMs} ms`;
      return overloaded(`event loop delay ${delay}, limit ${o.maxEventLoopDelayMs} ms`);
    }
    return null;
  };

  app.get(
    '/readyz',
    {
      schema: {
        summary: 'Readiness',
        operationId: 'readyz',
        tags: ['service'],
        description:
          'Whether this process can take work now (a load balancer or Kubernetes readiness probe): `200 ok` while the renderer is warm, the journal or Redis takes writes, the disk is not full, a bucket of `STORAGE_URL` answers within a second, the event loop keeps up and no shutdown has begun; else 503 with the reason. `/healthz` is the liveness probe.',
        response: {
          200: {
            description: '`ok` and a newline.',
            content: { 'text/plain': { schema: z.literal('ok\n'), example: 'ok\n' } },
          },
          503: refusalAnswer([
            CODE.starting,
            CODE.shutting_down,
            CODE.storage_full,
            CODE.redis_unavailable,
            CODE.storage_unavailable,
            CODE.overloaded,
          ]),
        },
      },
    },
    async (_req, reply) => {
      const down = await why();
      if (down) throw new Refused(down);
      return reply.header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('ok\n');
    },
  );
}
