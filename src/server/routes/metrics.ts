// GET /metrics: this process's Prometheus metrics (metrics/service-metrics.ts), in the text exposition format.
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

export const metricsRoutes: FastifyPluginAsyncZod<{ metrics: ServiceMetrics }> = async (app, { metrics }) => {
  app.get(
    '/metrics',
    {
      schema: {
        summary: 'Prometheus metrics',
        operationId: 'metrics',
        tags: ['service'],
        description:
          "This process's metrics in the Prometheus text format: jobs accepted, refused (by code) and ended (by kind and status), queue depth and running jobs, render and stage times (histograms), frames rendered, Chromium launches and page crashes, webhook deliveries by outcome, output bytes and budget, and Node's process metrics. Absent with `METRICS=off`. In Redis mode each process exposes its own; the API's queue gauges are the shared queue's, and a render worker serves its renders on its own `METRICS_PORT`.",
        response: {
          200: {
            description: 'Prometheus text exposition format 0.0.4.',
            content: {
              'text/plain': {
                schema: z.string(),
                example:
                  '# HELP cmrender_jobs_accepted_total Jobs accepted (202) by kind.\n# TYPE cmrender_jobs_accepted_total counter\ncmrender_jobs_accepted_total{kind="frame"} 3\n',
              },
            },
          },
        },
      },
    },
    async (_req, reply) => {
      const text = await metrics.text();
      return reply.header('content-type', metrics.contentType).header('cache-control', 'no-store').send(text);
    },
  );
};
