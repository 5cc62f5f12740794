// GET/HEAD /v1/outputs/{filename}: ETag, cache headers, single Range requests (206). The output store decides which
// names are outputs; nothing outside it can be read. An output with an owner (a job made with an API key) is that
// key's alone (http/tenancy.ts), so a shared cache must not keep it for others: `cache-control: private` and
// `vary: authorization`; one without an owner is public.
import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { OUTPUT_MIME } from '../../contract/mime.js';
import { OutputParams, OutputRequestHeaders } from '../http/schemas/outputs.js';
import { OUTPUT_CACHE_CONTROL, type OutputStore } from '../storage/output-store.js';
import { parseRange } from '../http/byte-range.js';
import { notFoundKept } from '../http/http-error.js';
import { mayReach } from '../http/tenancy.js';
import { CODE, envelope } from '../../contract/error-codes.js';
import { emptyAnswer, errorAnswer, fileAnswer, notFoundAnswer, refusalAnswer } from '../http/responses.js';
import { Refused, storageUnavailable } from '../../contract/refusals.js';
import { StorageUnavailable } from '../storage/storage.js';

export interface OutputRoutesOptions {
  outputs: OutputStore;
  /** STORAGE_PUBLIC_URLS=presigned: 302 to the bucket's presigned URL instead of streaming */
  presigned?: boolean;
  /** how long outputs are kept (RETENTION_MS), which a 404 says */
  keptMs: number;
}

const CACHE_CONTROL = OUTPUT_CACHE_CONTROL;
/** An owned output's: the same lifetime, for the client's own cache only. */
const PRIVATE_CACHE_CONTROL = CACHE_CONTROL.replace(/^public\b/, 'private');
/** the media types of the outputs a job can have */
const OUTPUT_TYPES = Object.values(OUTPUT_MIME);

export const outputRoutes: FastifyPluginAsyncZod<OutputRoutesOptions> = async (app, { outputs, presigned, keptMs }) => {
  const schema = {
    summary: 'Download an output',
    tags: ['outputs'],
    operationId: 'getOutput',
    description: `Streams the file inline with \`etag\`, \`content-length\` and \`cache-control: ${CACHE_CONTROL}\`; an output of a job made with an API key is its key's alone and is answered \`cache-control: ${PRIVATE_CACHE_CONTROL}\` with \`vary: authorization\`, so no shared cache serves it to another client. HEAD and single \`Range\` requests are supported.`,
    params: OutputParams,
    headers: OutputRequestHeaders,
    response: {
      200: fileAnswer('The file.', OUTPUT_TYPES),
      302: emptyAnswer(
        'Added, with `STORAGE_PUBLIC_URLS=presigned`: the output straight from the bucket, at the presigned URL in `location`, valid as long as the output is kept; the object carries the same type and cache headers.',
      ),
      206: fileAnswer('The requested byte range.', OUTPUT_TYPES),
      304: emptyAnswer('Not modified (If-None-Match matched the etag).'),
      404: notFoundAnswer('Unknown filename'),
      416: errorAnswer('Range not satisfiable: `range_not_satisfiable`, with `content-range: bytes */<size>`.', [
        CODE.range_not_satisfiable,
      ]),
      503: refusalAnswer([CODE.storage_unavailable]),
    },
  };
  app.get('/v1/outputs/:filename', { schema }, async (req, reply) => {
    const { filename } = req.params;
    let found;
    try {
      found = await outputs.lookup(filename);
    } catch (err) {
      if (err instanceof StorageUnavailable) throw new Refused(storageUnavailable());
      throw err;
    }
    // whose the answer is depends on the key presented: a cache keys it by Authorization (404s included)
    if (found?.owner !== undefined) reply.header('vary', 'authorization');
    if (!found || !mayReach(found.owner, req)) return reply.code(404).send(notFoundKept(`output ${filename}`, keptMs));
    const { output, size } = found;
    if (presigned) {
      const url = await outputs.publicUrl(output).catch(() => undefined);
      // the redirect may be reused while the URL is valid, not past it: no cache
      if (url) return reply.header('cache-control', 'no-store').redirect(url, 302);
    }
    const etag = `"${output.sha256}"`;
    reply
      .header('content-type', output.mime)
      .header('etag', etag)
      .header('cache-control', found.owner === undefined ? CACHE_CONTROL : PRIVATE_CACHE_CONTROL)
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
        return reply
          .code(416)
          .header('content-range', `bytes */${size}`)
          .header('content-type', 'application/json; charset=utf-8')
          .send(envelope(CODE.range_not_satisfiable));
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
    try {
      return reply.send(await outputs.read(output.filename, { start, end }));
    } catch (err) {
      if (err instanceof StorageUnavailable) throw new Refused(storageUnavailable());
      throw err;
    }
  });
};
