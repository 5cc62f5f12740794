// The request log and request ids: each request gets an id, either the client's `x-request-id` (when it is short and
// made of safe characters, so a log line cannot be forged or bloated through it) or a fresh UUID; the id is echoed
// in the answer's `x-request-id` and ends one `info` line per request (method, route, status, milliseconds, id).
// The probes and the metrics scrape are logged at `debug`: a kubelet asks every few seconds.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';
/** letters, digits and `._:-`, at most 128 of them: what tracing systems send (UUIDs, W3C trace ids, ULIDs) */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/** Fastify's genReqId: the client's id when it is a safe one, else a new UUID. */
export function requestId(req: IncomingMessage): string {
  const given = req.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

export function logRequests(app: FastifyInstance): void {
  // on every answer that reaches routing, errors and 404s included
  app.addHook('onRequest', async (req, reply) => {
    reply.header(REQUEST_ID_HEADER, req.id);
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? null;
    const line = {
      method: req.method,
      route,
      url: route ? undefined : req.url.slice(0, 200),
      status: reply.statusCode,
      ms: Math.round(reply.elapsedTime),
      request_id: req.id,
      event: 'request',
    };
    if (route && QUIET_ROUTES.has(route)) req.log.debug(line, 'request');
    else req.log.info(line, `${req.method} ${route ?? '(no route)'} ${reply.statusCode}`);
  });
}
