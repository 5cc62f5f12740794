// `cmrender mcp [--url URL]`: the MCP server for local agents (src/mcp/tools.ts) over stdio, its tools talking to a
// running service by HTTP: `--url`, else CMRENDER_URL, else http://127.0.0.1:3000; the key, if the service wants one,
// from CMRENDER_API_KEY (an environment variable, not a flag: a flag shows in the process list). Standard output
// carries the protocol's messages only; what goes wrong goes to stderr. Answers when the client closes stdin: 0.
// With no service at the address, every tool answers an error naming the address it tried and how to start one
// (fetch's own "fetch failed" says neither).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { cmrenderMcpServer } from '../mcp/tools.js';
import { httpServiceClient, type ServiceClient } from '../mcp/service-client.js';
import { MCP_USAGE } from './usage.js';
import { cliVersion } from './version.js';
import { CLI_MCP_SETTINGS } from '../config/settings.js';
import { readSettings } from '../config/setting.js';

interface LineIo {
  err: (s: string) => void;
}

export async function mcpCommand(argv: readonly string[], io: LineIo): Promise<number> {
  // CMRENDER_URL and CMRENDER_API_KEY are free text: never a ConfigError; the URL is checked below, flag or not
  const settings = readSettings(CLI_MCP_SETTINGS);
  let url = settings.serviceUrl;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--url') {
      const v = argv[++i];
      if (v === undefined) return usage(io, '`--url` requires a URL (e.g. `--url http://127.0.0.1:3000`)');
      url = v;
    } else if (a.startsWith('--url=')) url = a.slice(6);
    else return usage(io, `unexpected argument '${a}'`);
  }
  if (!/^https?:\/\/[^/]/.test(url)) return usage(io, `--url must be an http or https URL, not '${url}'`);
  const server = cmrenderMcpServer(
    explainUnreachable(httpServiceClient(url, settings.serviceApiKey || undefined), url),
    {
      version: cliVersion(),
    },
  );
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
  return 0;
}

/**
 * The client, with a request that reaches no service (refused, no such host, a timeout: fetch throws) turned into
 * what to do about it. An answer of the service, whatever its status, passes as it is.
 */
export function explainUnreachable(client: ServiceClient, url: string): ServiceClient {
  const explained =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    async (...a: A): Promise<R> => {
      try {
        return await f(...a);
      } catch (e) {
        const cause = (e as { cause?: { code?: string; message?: string } }).cause;
        const why = cause?.code ?? cause?.message ?? (e as Error).message;
        throw new Error(
          `no cmrender service answers at ${url} (${why}). Start one there (\`npm start\` in a clone of cmrender, or its Docker image: docs/operations.md), or give this command the address of one (--url URL, or CMRENDER_URL).`,
        );
      }
    };
  return {
    check: explained(client.check),
    enqueue: explained(client.enqueue),
    job: explained(client.job),
    explain: explained(client.explain),
    download: explained(client.download),
    cancel: explained(client.cancel),
    batch: explained(client.batch),
    batchView: explained(client.batchView),
    cancelBatch: explained(client.cancelBatch),
    nextChange: client.nextChange,
    absolute: client.absolute,
  };
}

function usage(io: LineIo, msg: string): number {
  io.err(`error: ${msg}\nusage: ${MCP_USAGE}`);
  return 2;
}
