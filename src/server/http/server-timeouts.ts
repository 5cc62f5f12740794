// The time limits every HTTP server of ours starts with (the service and the standalone runner): a client that
// sends its headers slowly (or half of them, then nothing) is answered 408 and cut off by Node within
// HEADERS_TIMEOUT_MS, before any route or hook of ours sees the request. Node checks its limits every
// connectionsCheckingInterval (30 s by default: a trickling socket lived up to 90 s); once a second here. Our own
// body timer (request-timeout.ts) answers slow bodies with the envelope; Node's requestTimeout is its backstop.
import type { ServerOptions } from 'node:http';

/** how often Node looks for connections past their headers or request time limit */
const CHECK_EVERY_MS = 1_000;
/** Node's own request limit stays behind ours, so a slow body gets our 408 envelope first */
const BACKSTOP_MS = 5_000;

export function serverTimeouts(
  requestTimeoutMs: number,
  headersTimeoutMs: number,
): { http: ServerOptions; requestTimeout: number } {
  return {
    http: {
      headersTimeout: Math.min(headersTimeoutMs, requestTimeoutMs),
      connectionsCheckingInterval: CHECK_EVERY_MS,
    },
    requestTimeout: requestTimeoutMs + BACKSTOP_MS,
  };
}
