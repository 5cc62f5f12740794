// POST /mcp (GET and DELETE answer 405): the MCP server for agents (src/mcp/tools.ts) over the Streamable HTTP
// transport of @modelcontextprotocol/sdk, stateless: a new server and transport per request. Its tools reach the
// service through this app's own routes (app.inject) with the caller's Authorization header and address, so an MCP
// call is a job like any other: the same keys, rate limits, admission and render cache. With API_KEYS, /mcp needs a
// key whatever the method (http/api-keys.ts), and a 401 comes back in the ErrorEnvelope before the transport sees it.
// A tool waits for its job on the job service's events, not by polling; when the request's connection closes, the
// SDK aborts the call's signal and the tool cancels the job it queued (src/mcp/tools.ts: unless asked to keep it).
//
// Hidden from the OpenAPI document: MCP is its own protocol (JSON-RPC messages, answered as Server-Sent Events), which
// the document cannot describe route by route; docs/agents.md says how to connect.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, InjectOptions } from 'fastify';
import { CODE } from '../../contract/error-codes.js';
import { httpError } from '../http/http-error.js';
import { hijackKeepingHeaders } from '../http/hijacked-headers.js';
import { ENQUEUE_PATH, type Answer, type ServiceClient } from '../../mcp/service-client.js';
import type { JobService } from '../jobs/job-service.js';

export const MCP_PATH = '/mcp';

/** The longest wait on a job's events before it is read again anyway (an event lost in a Redis reconnect). */
const EVENTLESS_READ_MS = 5_000;

/** Resolves at job `id`'s next change or queue move (the job service's events), after `ms`, or when `signal` aborts. */
function nextChange(jobs: JobService, id: string, ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      jobs.events.off('changed', onChanged);
      jobs.events.off('queue', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const onChanged = (changed: string) => {
      if (changed === id) done();
    };
    const t = setTimeout(done, Math.min(ms, EVENTLESS_READ_MS));
    jobs.events.on('changed', onChanged);
    // a move in the line changes the job's queue_position
    jobs.events.on('queue', done);
    signal.addEventListener('abort', done);
    if (signal.aborted) done();
  });
}

/** The app's routes as the MCP tools' client, on behalf of the request `req` (its key and its address). */
export function injectedClient(app: FastifyInstance, req: FastifyRequest, jobs: JobService): ServiceClient {
  const headers: Record<string, string> = {};
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
  // the caller's Host too: a service that answers its own address only (`cmrender open`) takes its injected calls
  if (req.headers.host) headers.host = req.headers.host;
  const call = async (o: InjectOptions): Promise<Answer> => {
    const r = await app.inject({ ...o, remoteAddress: req.ip, headers: { ...headers, ...o.headers } });
    let body: Record<string, unknown> | null = null;
    try {
      body = r.body ? (r.json() as Record<string, unknown>) : null;
    } catch {
      body = { error: r.body };
    }
    return { status: r.statusCode, body };
  };
  const post = (url: string, payload: unknown) =>
    call({ method: 'POST', url, payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } });
  const origin = `${req.protocol}://${req.host}`;
  return {
    check: (source, args) => post('/v1/check', args === undefined ? { source } : { source, args }),
    enqueue: (kind, body) => post(ENQUEUE_PATH[kind], body),
    job: (id) => call({ method: 'GET', url: `/v1/jobs/${encodeURIComponent(id)}` }),
    cancel: (id) => call({ method: 'DELETE', url: `/v1/jobs/${encodeURIComponent(id)}` }),
    nextChange: (id, ms, signal) => nextChange(jobs, id, ms, signal),
    batch: (body) => post('/v1/batches', body),
    batchView: (id) => call({ method: 'GET', url: `/v1/batches/${encodeURIComponent(id)}` }),
    cancelBatch: (id) => call({ method: 'DELETE', url: `/v1/batches/${encodeURIComponent(id)}` }),
    explain: (code) => call({ method: 'GET', url: `/v1/diagnostics/${encodeURIComponent(code)}` }),
    async download(path) {
      const r = await app.inject({ method: 'GET', url: path, remoteAddress: req.ip, headers });
      return { status: r.statusCode, mime: String(r.headers['content-type'] ?? ''), bytes: r.rawPayload };
    },
    absolute: (path) => origin + path,
  };
}

/** The MCP SDK and our tools, loaded by the first MCP request: a service no agent calls does not start them. */
let mcpModules:
  | Promise<[typeof import('../../mcp/tools.js'), typeof import('@modelcontextprotocol/sdk/server/streamableHttp.js')]>
  | undefined;

export interface McpRoutesOptions {
  jobs: JobService;
}

export const mcpRoutes: FastifyPluginAsync<McpRoutesOptions> = async (app, { jobs }) => {
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    mcpModules ??= Promise.all([
      import('../../mcp/tools.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const [{ cmrenderMcpServer }, { StreamableHTTPServerTransport }] = await mcpModules;
    const server = cmrenderMcpServer(injectedClient(app, req, jobs));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    // the transport writes the answer: the CORS headers and x-request-id the hooks set go with it
    hijackKeepingHeaders(reply);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };
  app.post(MCP_PATH, { schema: { hide: true } }, handle);
  // stateless: no session, so no stream to GET and none to DELETE
  app.route({
    method: ['GET', 'DELETE'],
    url: MCP_PATH,
    schema: { hide: true },
    handler: async (_req, reply) => {
      reply.header('allow', 'POST');
      throw httpError(CODE.method_not_allowed, 'this MCP endpoint is stateless: POST JSON-RPC messages to it');
    },
  });
};
