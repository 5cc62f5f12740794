// A server that answers its own address only (`cmrender open`, src/entry/open-service.ts): a request whose Host is
// not the loopback address and port the server bound is 403 `forbidden`. A page on another site can make a browser
// send requests to 127.0.0.1 by a name of its own that it rebinds there (DNS rebinding); such requests carry that
// name as their Host, so they are refused before any route, CORS included, answers them.
import type { FastifyInstance } from 'fastify';
import type { AddressInfo } from 'node:net';
import { CODE, envelope } from '../../contract/error-codes.js';

/** The Host a browser sends to this server's own URL (`127.0.0.1:port`), or null before it listens. */
function ownHost(app: FastifyInstance): string | null {
  const a = app.server.address() as AddressInfo | string | null;
  if (!a || typeof a === 'string') return null;
  return a.family === 'IPv6' ? `[${a.address}]:${a.port}` : `${a.address}:${a.port}`;
}

/** Refuses (403 `forbidden`) every request whose Host is not the server's own bound address and port. */
export function answerOwnHostOnly(app: FastifyInstance): void {
  app.addHook('onRequest', async (req, reply) => {
    const own = ownHost(app);
    if (own !== null && req.headers.host === own) return;
    return reply
      .code(403)
      .send(
        envelope(
          CODE.forbidden,
          `Host must be ${own ?? 'this server'}'s own address: this service answers no other name`,
        ),
      );
  });
}
