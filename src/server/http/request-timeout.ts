// A time limit on receiving a request's body (REQUEST_TIMEOUT_MS): a client that drips its body holds a socket, a
// parser and, for an upload, a slot of MAX_CONCURRENT_UPLOADS. Past the limit it is answered 408 and cut off. Our
// own timer: Fastify's requestTimeout did not fire on a dripping body here (Fastify 5, Node 20).
import type { FastifyInstance } from 'fastify';
import { CODE, envelope } from '../../contract/error-codes.js';

export function limitRequestTime(app: FastifyInstance, ms: number): void {
  app.addHook('onRequest', async (req, reply) => {
    const raw = req.raw;
    if (raw.complete) return;
    const timer = setTimeout(() => {
      if (raw.complete || reply.raw.headersSent) return;
      reply.raw.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close' });
      reply.raw.end(
        JSON.stringify(envelope(CODE.request_timeout, `the request was not received within ${ms / 1000} s`)),
      );
      raw.socket?.destroySoon();
    }, ms);
    timer.unref();
    const clear = () => clearTimeout(timer);
    raw.once('end', clear);
    raw.once('close', clear);
    reply.raw.once('finish', clear);
  });
}
