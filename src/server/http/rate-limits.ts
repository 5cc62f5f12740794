// Per-client limits on POSTs under /v1/ (RATE_LIMIT_POSTS per RATE_LIMIT_WINDOW_MS; 0: off, the default), through
// @fastify/rate-limit: counted per API key when the request presents one (http/api-keys.ts), else per client
// address; in Redis mode the counts live in Redis, so every API process shares them, else in this process
// (rate-limit-store.ts). Each request is counted on its own, so each call of a JSON-RPC batch to /mcp is one POST.
// Past the limit: 429 `rate_limited` in the ErrorEnvelope with `Retry-After`.
//
// Every counted answer carries the IETF header fields (draft-ietf-httpapi-ratelimit-headers): `RateLimit-Policy:
// "posts";q=<limit>;w=<window s>` and `RateLimit: "posts";r=<remaining>;t=<seconds to reset>`, made from what the
// plugin measured (its own draft-spec `ratelimit-limit/-remaining/-reset` fields, which stay too).
//
// The plugin counts in fixed windows (its stores' model), not a sliding token bucket: a client gets at most
// RATE_LIMIT_POSTS in any one window, and twice that across a window's edge at worst.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import { CODE } from '../../contract/error-codes.js';
import { httpError } from './http-error.js';
import { isApiRoute } from './api-keys.js';
import { LocalWindowStore } from './rate-limit-store.js';

export interface RateLimitOptions {
  /** POSTs per window; 0: no limit */
  max: number;
  windowMs: number;
  /** Redis mode: the shared store */
  redis?: Redis;
}

// the route the router matched, not the raw target (`/%761/frame` routes to /v1/frame and is counted like it)
const counted = (req: FastifyRequest) => req.method === 'POST' && isApiRoute(req);

export async function limitPosts(app: FastifyInstance, o: RateLimitOptions): Promise<void> {
  if (o.max <= 0) return;
  const windowS = Math.max(1, Math.round(o.windowMs / 1000));
  await app.register(rateLimit, {
    global: true,
    max: o.max,
    timeWindow: o.windowMs,
    enableDraftSpec: true,
    // only POSTs under /v1/ spend the budget: polls, downloads and pages are free
    allowList: (req) => !counted(req),
    keyGenerator: (req) => (req.apiKeyId ? `key:${req.apiKeyId}` : `ip:${req.ip}`),
    // without Redis, our store: each request reads its own count (rate-limit-store.ts)
    ...(o.redis ? { redis: o.redis, nameSpace: 'cmrender-ratelimit:' } : { store: LocalWindowStore }),
    // a Redis that does not answer must not stop the service taking work
    skipOnError: true,
    errorResponseBuilder: (_req, ctx) =>
      httpError(
        CODE.rate_limited,
        `rate limit reached: ${o.max} POSTs per ${windowS} s; retry in ${Math.max(1, Math.ceil(ctx.ttl / 1000))} s`,
      ),
  });
  app.addHook('onSend', async (req, reply) => {
    if (!counted(req)) return;
    const remaining = reply.getHeader('ratelimit-remaining');
    const reset = reply.getHeader('ratelimit-reset');
    if (remaining === undefined || reset === undefined) return;
    reply.header('ratelimit-policy', `"posts";q=${o.max};w=${windowS}`);
    reply.header('ratelimit', `"posts";r=${Number(remaining)};t=${Number(reset)}`);
  });
}
