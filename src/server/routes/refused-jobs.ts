// Counts the refused POSTs of a job by the code of the answer: whatever refused it (a schema, the queue, the disk, a
// missing key, the rate limit) answers through the error envelope, so one onSend hook sees every refusal.
import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import { ENQUEUE_URLS } from './enqueue.js';

export function countRefusedJobs(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (reply.statusCode < 400 || req.method !== 'POST' || !ENQUEUE_URLS.has(req.routeOptions.url ?? '')) return;
    metrics.refusedJob(codeOf(payload) ?? String(reply.statusCode));
  });
}

/** The envelope's `code`, when the payload is one. */
function codeOf(payload: unknown): string | undefined {
  if (typeof payload !== 'string' && !Buffer.isBuffer(payload)) return undefined;
  try {
    const code = (JSON.parse(payload.toString()) as { code?: unknown }).code;
    return typeof code === 'string' ? code : undefined;
  } catch {
    return undefined;
  }
}
