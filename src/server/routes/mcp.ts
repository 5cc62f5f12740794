// POST /mcp (GET and DELETE answer 405): the MCP server for agents (src/mcp/tools.ts) over the Streamable HTTP
// transport of @modelcontextprotocol/sdk, stateless: a new server and transport per request. Its tools reach the
// service through this app's own routes (app.inject) with the caller's Authorization header and address, so an MCP
// call is a job like any other: the same keys, rate limits, admission and render cache. With API_KEYS, /mcp needs a
// key whatever the method (http/api-keys.ts), and a 401 comes back in the ErrorEnvelope before the transport sees it.
//
// Hidden from the OpenAPI document: MCP is its own protocol (JSON-RPC messages, answered as Server-Sent Events), which
// the document cannot describe route by route; docs/agents.md says how to connect.
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest, InjectOptions } from 'fastify';
import { CODE } from '../../contract/error-codes.js';
import { httpError } from '../http/http-error.js';
import { ENQUEUE_PATH, type Answer, type ServiceClient } from '../../mcp/service-client.js';

export const MCP_PATH = '/mcp';

/** The app's routes as the MCP tools' client, on behalf of the request `req` (its key and its address). */
export function injectedClient(app: FastifyInstance, req: FastifyRequest): ServiceClient {
  const headers: Record<string, string> = {};
  if (req.headers.authorization) headers.authorization = req.headers.authorization;
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

export const mcpRoutes: FastifyPluginAsync = async (app) => {
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    mcpModules ??= Promise.all([
      import('../../mcp/tools.js'),
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    ]);
    const [{ cmrenderMcpServer }, { StreamableHTTPServerTransport }] = await mcpModules;
    const server = cmrenderMcpServer(injectedClient(app, req));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    reply.hijack();
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
