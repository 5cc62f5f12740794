// GET /v1/open/source: the text of the one file `cmrender open FILE` serves (src/entry/open-service.ts registers this
// plugin; the service `npm start` runs never does). No path parameter: the file is fixed when the command starts, so
// no request can name another. The answer carries a strong ETag of the bytes, and `If-None-Match` with the current
// one answers 304: the editor polls it cheaply to follow the file as it changes on disk (editor/src/open-file.ts),
// and a page reload reads the file as it is now. A file that cannot be read at this moment (an editor's save by
// rename, a removed file) is 404 `not_found`, and the next poll tries again.
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { NOT_FOUND } from '../http/http-error.js';

export interface OpenFileRoutesOptions {
  /** the file's absolute path */
  file: string;
}

/** The most bytes served: the CLI's own cap on a source file (src/cli/main.ts). */
export const OPEN_FILE_MAX_BYTES = 16 * 1024 * 1024;

export const openFileRoutes: FastifyPluginAsyncZod<OpenFileRoutesOptions> = async (app, { file }) => {
  const name = basename(file);
  app.get(
    '/v1/open/source',
    { schema: { hide: true, headers: z.object({ 'if-none-match': z.string().optional() }).passthrough() } },
    async (req, reply) => {
      const bytes = await readFile(file).catch(() => null);
      reply.header('cache-control', 'no-store');
      if (!bytes || bytes.length > OPEN_FILE_MAX_BYTES) {
        return reply.code(404).send(NOT_FOUND);
      }
      const etag = `"${createHash('sha256').update(bytes).digest('hex').slice(0, 32)}"`;
      reply
        .header('etag', etag)
        .header('x-content-type-options', 'nosniff')
        // the name, for the page's notes ("Reloaded scene.cm"); encoded, since a file name may be any characters
        .header('content-disposition', `inline; filename*=UTF-8''${encodeURIComponent(name)}`);
      if (req.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.header('content-type', 'text/plain; charset=utf-8').send(bytes);
    },
  );
};
