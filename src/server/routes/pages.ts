// GET / (the editor, service.md "Pages") and GET /editor/{file} (its bundle, stylesheet and font), served from the
// built dist/editor. The editor is an ordinary page of this origin: it calls the API like any client and loads
// nothing from elsewhere. The drawing page's fence (src/render/page/fence.ts) is the renderer's, not this page's.
import { readFile, stat } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { join } from 'node:path';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { PAGE_FILE_MIME } from '../../contract/mime.js';
import { errorAnswer } from '../http/responses.js';
import { NOT_FOUND } from '../http/http-error.js';
import { CODE, envelope } from '../../contract/error-codes.js';

export interface PageRoutesOptions {
  /** the built editor (dist/editor) */
  dir: string;
}

const FILE_RE = /^[A-Za-z0-9_-]+\.[a-z0-9]+$/;
/** what a page may fetch beyond this origin: nothing */
const PAGE_CSP = [
  "default-src 'self'",
  "img-src 'self' blob: data:",
  "media-src 'self' blob:",
  "style-src 'self' 'unsafe-inline'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** A built file as it is sent: its bytes, gzipped when it is text, and its etag. */
interface PageFile {
  mtimeMs: number;
  bytes: Buffer;
  gzip: Buffer | null;
  etag: string;
}

/** The page's files, read and compressed once per build (a rebuild changes the mtime). */
function pageFiles(dir: string) {
  const memo = new Map<string, PageFile>();
  return async (name: string): Promise<PageFile | null> => {
    const path = join(dir, name);
    const st = await stat(path).catch(() => null);
    if (!st?.isFile()) return null;
    const hit = memo.get(name);
    if (hit && hit.mtimeMs === st.mtimeMs) return hit;
    const bytes = await readFile(path);
    const text = /\.(js|css|html)$/.test(name);
    const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;
    const file = { mtimeMs: st.mtimeMs, bytes, gzip: text ? gzipSync(bytes) : null, etag };
    memo.set(name, file);
    return file;
  };
}

export const pageRoutes: FastifyPluginAsyncZod<PageRoutesOptions> = async (app, { dir }) => {
  const files = pageFiles(dir);
  const notBuilt = envelope(CODE.editor_not_built);

  app.get(
    '/',
    {
      schema: {
        summary: 'The editor',
        description: 'An HTML page: write a scene with live diagnostics and preview, render it through this API.',
        operationId: 'editor',
        tags: ['pages'],
        response: {
          200: { description: 'HTML', content: { 'text/html': { schema: z.string(), example: '<!doctype html>…' } } },
          503: errorAnswer('`editor_not_built`: the page was not built (npm run build).', [CODE.editor_not_built]),
        },
      },
    },
    async (_req, reply) => {
      const html = await readFile(join(dir, 'index.html'), 'utf8').catch(() => null);
      if (!html) return reply.code(503).send(notBuilt);
      return reply
        .header('content-type', PAGE_FILE_MIME.html)
        .header('cache-control', 'no-cache')
        .header('content-security-policy', PAGE_CSP)
        .send(html);
    },
  );

  app.get('/editor/:file', { schema: { hide: true, params: z.object({ file: z.string() }) } }, async (req, reply) => {
    const { file } = req.params;
    const mime = FILE_RE.test(file) ? PAGE_FILE_MIME[file.slice(file.lastIndexOf('.') + 1)] : undefined;
    const found = mime ? await files(file) : null;
    if (!found) return reply.code(404).send(NOT_FOUND);
    // the bundle is 1.8 MB, about 0.5 MB gzipped; an unchanged build answers 304
    reply
      .header('content-type', mime!)
      .header('cache-control', 'no-cache')
      .header('etag', found.etag)
      .header('vary', 'accept-encoding')
      .header('x-content-type-options', 'nosniff');
    if (req.headers['if-none-match'] === found.etag) return reply.code(304).send();
    if (found.gzip && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
      return reply.header('content-encoding', 'gzip').send(found.gzip);
    }
    return reply.send(found.bytes);
  });
};
