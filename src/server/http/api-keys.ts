// Optional API keys (API_KEYS; off by default, so the contract's v0 stays true). With keys, every write under /v1/
// (POST, DELETE) and every call of /mcp need `Authorization: Bearer <key>`; reads of a job, an output or an asset by its unguessable id stay
// open unless API_KEYS_READS=1. Otherwise 401 `unauthorized` in the ErrorEnvelope, with `WWW-Authenticate: Bearer`.
//
// API_KEYS is a file (one key per line, `#` comments) or a comma-separated list; an entry `sha256:<64 hex>` is the
// SHA-256 of a key, so the file need not hold the keys themselves (`printf %s "$KEY" | sha256sum`). Keys are known
// by their hash only: a presented key is hashed and looked up, and its id (the hash's first 12 hex digits) names it
// in the rate limits, the logs and the job records (keys are tenants: http/tenancy.ts), never the key.
//
// Both decisions fail closed. A value that starts with `/` or `.` is a file's path: a file that is missing or cannot
// be read stops the start (read as a key list, its path would become the one valid key, and a published manifest
// names that path). Which requests need a key is decided on the route the router matched, never on the raw target:
// `/%761/frame` and the absolute form `http://host/v1/frame` route to `/v1/frame` and are asked for a key like it.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CODE } from '../../contract/error-codes.js';
import { httpError } from './http-error.js';

const HASHED = /^sha256:([0-9a-f]{64})$/i;
const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

export class ApiKeys {
  private constructor(private readonly hashes: ReadonlySet<string>) {}

  /** The keys API_KEYS names (a file's lines or a list); null when it is empty. */
  static load(setting: string): ApiKeys | null {
    const raw = setting.trim();
    if (!raw) return null;
    const text = isPath(raw) ? readKeyFile(raw) : raw.replaceAll(',', '\n');
    const entries = text
      .split('\n')
      .map((l) => l.replace(/#.*$/, '').trim())
      .filter(Boolean);
    if (!entries.length) throw new Error(isPath(raw) ? `API_KEYS file ${raw} names no key` : 'API_KEYS names no key');
    return new ApiKeys(new Set(entries.map((e) => HASHED.exec(e)?.[1]!.toLowerCase() ?? sha256(e))));
  }

  /** The id of the key a request presents, or null when it presents none that is known. */
  idOf(req: FastifyRequest): string | null {
    const m = /^Bearer +(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!m) return null;
    const hash = sha256(m[1]!);
    return this.hashes.has(hash) ? hash.slice(0, 12) : null;
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** the id of the API key the request presented (null: none, or keys are off) */
    apiKeyId: string | null;
  }
}

const isPath = (setting: string) => setting.startsWith('/') || setting.startsWith('.');

function readKeyFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : 'cannot be read';
    throw new Error(`API_KEYS names the file ${path}, which ${why} (${(err as Error).message})`);
  }
}

/** Whether the router matched a route of the API (`/v1/...`): the route's pattern, never the raw request target. */
export const isApiRoute = (req: FastifyRequest): boolean => req.routeOptions.url?.startsWith('/v1/') === true;

/** The MCP endpoint (routes/mcp.ts): its every call may queue work, so it needs a key as writes do. */
const isMcpRoute = (req: FastifyRequest): boolean => req.routeOptions.url === '/mcp';

/** Which requests need a key: writes under /v1/ and every call of /mcp, and with `reads` the reads too. */
function needsKey(req: FastifyRequest, reads: boolean): boolean {
  if (req.method === 'OPTIONS') return false;
  if (isMcpRoute(req)) return true;
  if (!isApiRoute(req)) return false;
  return reads || (req.method !== 'GET' && req.method !== 'HEAD');
}

/** Asks for a key where one is needed (a no-op without API_KEYS, but every request still gets apiKeyId). */
export function requireApiKeys(app: FastifyInstance, keys: ApiKeys | null, reads: boolean): void {
  app.decorateRequest('apiKeyId', null);
  if (!keys) return;
  app.addHook('onRequest', async (req, reply) => {
    req.apiKeyId = keys.idOf(req);
    if (req.apiKeyId || !needsKey(req, reads)) return;
    reply.header('www-authenticate', 'Bearer');
    throw httpError(CODE.unauthorized, req.headers.authorization ? 'this API key is not known' : undefined);
  });
}
