// GET /v1/open/source: the text of the one file `cmrender open FILE` serves (src/entry/open-service.ts registers this
// plugin; the service `npm start` runs never does). No path parameter: the file is fixed when the command starts, so
// no request can name another. The answer carries a strong ETag of the bytes, and `If-None-Match` with the current
// one answers 304: the editor polls it cheaply to follow the file as it changes on disk (editor/src/open-file.ts),
// and a page reload reads the file as it is now. A file that cannot be read at this moment (an editor's save by
// rename, a removed file) is 404 `not_found`, and the next poll tries again.
//
// Only the page the command printed may read it (any other page in the user's browser is hostile):
// - the request carries the URL's random token in `x-cmrender-open-token` (the page reads it from `?open=`), else
//   403 `forbidden`: another page cannot guess it;
// - a request with an `Origin` other than the server's own is 403 `forbidden`, and no answer of this route carries
//   CORS headers (the app's `*` is taken off here), so a browser lets no other origin read it;
// - the Host is the server's own (the app's `ownHostOnly`, http/own-host.ts: a DNS-rebound name is refused).
// The file is the one named at the start: its real path is resolved once (a symlink given on the command line is
// followed then), and each read opens that path with O_NOFOLLOW and takes only a regular file, so a symlink swapped
// in at the path later (to ~/.ssh/id_rsa, say) is 404, never followed. A save by rename (a new regular file at the
// path, which most editors do) is read as usual; following a new inode is what "the file as it is now" means.
import { constants } from 'node:fs';
import { open, realpath } from 'node:fs/promises';
import { createHash, timingSafeEqual } from 'node:crypto';
import { basename } from 'node:path';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CODE, envelope } from '../../contract/error-codes.js';
import { NOT_FOUND } from '../http/http-error.js';

export interface OpenFileRoutesOptions {
  /** the file's absolute path */
  file: string;
  /** the random token of the URL the command printed: a request without it is refused */
  token: string;
}

/** The header the page sends the URL's token in. */
export const OPEN_TOKEN_HEADER = 'x-cmrender-open-token';

/** The most bytes served: the CLI's own cap on a source file (src/cli/main.ts). */
export const OPEN_FILE_MAX_BYTES = 16 * 1024 * 1024;

/** The CORS headers the app puts on every answer: none of them on this route's. */
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
];

/** O_NOFOLLOW where the system has it (not on Windows, where the regular-file check below still holds). */
const NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0);

/** The file's bytes if the path is still a regular file (not a symlink) within the cap, else null. */
async function readOwnFile(path: string): Promise<Buffer | null> {
  const fh = await open(path, NO_FOLLOW).catch(() => null);
  if (!fh) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile() || st.size > OPEN_FILE_MAX_BYTES) return null;
    const bytes = await fh.readFile();
    return bytes.length > OPEN_FILE_MAX_BYTES ? null : bytes;
  } catch {
    return null;
  } finally {
    await fh.close().catch(() => {});
  }
}

const sameToken = (sent: string | string[] | undefined, token: string): boolean => {
  if (typeof sent !== 'string') return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
};

export const openFileRoutes: FastifyPluginAsyncZod<OpenFileRoutesOptions> = async (app, { file, token }) => {
  const name = basename(file);
  const real = await realpath(file).catch(() => file);
  // encapsulated: these hooks are this route's only
  app.addHook('onRequest', async (req, reply) => {
    for (const h of CORS_HEADERS) reply.removeHeader(h);
    const origin = req.headers.origin;
    if (origin !== undefined && origin !== `http://${req.headers.host}`)
      return reply.code(403).send(envelope(CODE.forbidden, `a page of ${origin} may not read the opened file`));
    if (!sameToken(req.headers[OPEN_TOKEN_HEADER], token))
      return reply
        .code(403)
        .send(envelope(CODE.forbidden, `the opened file is read with the token of the URL cmrender open printed`));
  });
  app.get(
    '/v1/open/source',
    { schema: { hide: true, headers: z.object({ 'if-none-match': z.string().optional() }).passthrough() } },
    async (req, reply) => {
      const bytes = await readOwnFile(real);
      reply.header('cache-control', 'no-store');
      if (!bytes) return reply.code(404).send(NOT_FOUND);
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
