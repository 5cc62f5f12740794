// The address a listening server actually bound, as a URL: what the ready line logs. Fastify's own answer to
// listen() picks one of the machine's addresses when bound to 0.0.0.0 or ::, so the line would say 127.0.0.1 while
// every interface listens; this reads the socket instead.
import type { Server } from 'node:net';

export function boundAddress(server: Server): string {
  const a = server.address();
  if (!a || typeof a === 'string') return String(a);
  return `http://${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}`;
}
