// GET/HEAD /v1/outputs/{filename}: ETag, cache headers, single Range requests (206), never outside the output store.
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { LIMITS } from '../../contract/limits.js';
import type { OutputStore } from '../outputs/output-store.js';

/** Parses a single `bytes=` range against a size. null: ignore the header (serve the whole file); 'unsatisfiable': 416. */
export function parseRange(header: string, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null; // malformed or multiple ranges: RFC 9110 lets us ignore it
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}

export function outputRoutes(app: FastifyInstance, outputs: OutputStore): void {
  app.get<{ Params: { filename: string } }>('/v1/outputs/:filename', async (req, reply) => {
    const { filename } = req.params;
    const found = await outputs.lookup(filename);
    if (!found) return reply.code(404).send({ error: 'not_found' });
    const { output, size, path } = found;
    const etag = `"${output.sha256}"`;
    reply
      .header('content-type', output.mime)
      .header('etag', etag)
      .header('cache-control', `public, max-age=${LIMITS.outputCacheSeconds}, immutable`)
      .header('accept-ranges', 'bytes')
      .header('last-modified', new Date(output.written_at).toUTCString())
      .header('content-disposition', `inline; filename="${filename}"`);
    const inm = req.headers['if-none-match'];
    if (inm && inm.split(',').some((t) => t.trim() === etag || t.trim() === `W/${etag}` || t.trim() === '*')) {
      return reply.code(304).send();
    }
    let start = 0;
    let end = size - 1;
    const rangeHeader = req.headers.range;
    const ifRange = req.headers['if-range'];
    if (rangeHeader && (!ifRange || ifRange === etag)) {
      const r = parseRange(rangeHeader, size);
      if (r === 'unsatisfiable') {
        return reply.code(416).header('content-range', `bytes */${size}`).header('content-type', 'application/json; charset=utf-8').send({ error: 'range_not_satisfiable' });
      }
      if (r) {
        start = r.start;
        end = r.end;
        reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
      }
    }
    const length = size === 0 ? 0 : end - start + 1;
    reply.header('content-length', length);
    // HEAD: an empty stream keeps our content-length (Fastify's HEAD handler would set 0 for an empty body).
    if (req.method === 'HEAD' || length === 0) return reply.send(Readable.from([]));
    return reply.send(createReadStream(path, { start, end }));
  });
}
