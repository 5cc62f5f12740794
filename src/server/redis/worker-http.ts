// The small HTTP server of a Redis-mode render worker (METRICS_PORT): a worker takes its work from the queue and has
// no API, so without it Prometheus could not scrape its renders and Kubernetes could only probe its process.
// GET /metrics (its own registry), /healthz (liveness: 503 only when its renderer cannot draw even after
// relaunches) and /readyz (503 while starting, stopping, without a renderer or without Redis). Plain node:http:
// three fixed answers need no framework. It has the service's header and request time limits.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Refusal } from '../../contract/refusals.js';
import { CODE, envelope, statusOf, type AnswerCode } from '../../contract/error-codes.js';
import { serverTimeouts } from '../http/server-timeouts.js';
import type { WorkerMetrics } from '../metrics/worker-metrics.js';

export interface WorkerHttpOptions {
  host: string;
  port: number;
  /** null with METRICS=off: /metrics answers 404 */
  metrics: WorkerMetrics | null;
  health(): Refusal | null;
  readiness(): Refusal | null;
  requestTimeoutMs: number;
  headersTimeoutMs: number;
}

export interface WorkerHttp {
  /** http://host:port as bound (port 0: the one the system gave) */
  address: string;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(body);
}

function answer(res: ServerResponse, code: AnswerCode, message?: string, headers?: Record<string, string>) {
  const body = envelope(code, message);
  send(res, statusOf(code), 'application/json; charset=utf-8', JSON.stringify(body), headers);
}

function probe(res: ServerResponse, why: Refusal | null) {
  if (!why) return send(res, 200, 'text/plain; charset=utf-8', 'ok\n');
  answer(res, why.code, why.error, { 'retry-after': String(Math.max(1, Math.ceil(why.retryAfterSeconds))) });
}

export async function startWorkerHttp(o: WorkerHttpOptions): Promise<WorkerHttp> {
  const limits = serverTimeouts(o.requestTimeoutMs, o.headersTimeoutMs);
  const server = createServer(limits.http, (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const known = path === '/metrics' || path === '/healthz' || path === '/readyz';
    if (!known || (path === '/metrics' && !o.metrics)) return answer(res, CODE.not_found);
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return answer(res, CODE.method_not_allowed, `${req.method} is not allowed here`, { allow: 'GET, HEAD' });
    if (path === '/healthz') return probe(res, o.health());
    if (path === '/readyz') return probe(res, o.readiness());
    o.metrics!.text().then(
      (text) => send(res, 200, o.metrics!.contentType, text),
      () => answer(res, CODE.internal_error),
    );
  });
  server.requestTimeout = limits.requestTimeout;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  return {
    address: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
