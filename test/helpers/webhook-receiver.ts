// A webhook receiver for tests: node:http on 127.0.0.1, recording every POST, answering what the test says, and the
// receiver's check of the deprecated X-CMRender-Signature.
import { timingSafeEqual } from 'node:crypto';
import { signWebhook } from '../../src/server/webhooks/signature.js';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { until } from './until.js';

export interface Hit {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Receiver {
  url: string;
  hits: Hit[];
  /** resolves once `n` hits have arrived (bounded: rejects after timeoutMs) */
  waitFor(n: number, timeoutMs?: number): Promise<Hit[]>;
  close(): Promise<void>;
}

/** status(n) answers the n-th hit (1-based); 0 leaves it unanswered (a receiver that hangs). */
export async function startReceiver(status: (n: number) => number = () => 204, path = '/hook'): Promise<Receiver> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      hits.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      const code = status(hits.length);
      if (code) {
        res.statusCode = code;
        res.end();
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    hits,
    async waitFor(n, timeoutMs = 20_000) {
      await until(
        () => `${n} hits (the receiver got ${hits.length})`,
        () => hits.length >= n,
        timeoutMs,
      );
      return hits.slice(0, n);
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** The receiver's side of the deprecated scheme: the hex HMAC of `timestamp.body` checked in constant time. */
export function verifyWebhook(secret: string, timestamp: string, body: string, signature: string): boolean {
  const want = Buffer.from(signWebhook(secret, Number(timestamp), body), 'hex');
  const got = Buffer.from(signature, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
