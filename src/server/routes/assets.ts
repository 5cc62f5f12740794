// POST /v1/assets: multipart upload of images -> {"assets": {"<filename>": "asset_<32 hex>"}}
// GET /v1/assets/{key}: the uploaded bytes back (the editor previews uploaded images with them).
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { MultipartFile } from '@fastify/multipart';
import { z } from 'zod';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { LIMITS } from '../../contract/limits.js';
import { describeDuration } from '../../contract/describe-duration.js';
import { sniffImage } from '../../contract/mime.js';
import { CODE, envelope } from '../../contract/error-codes.js';
import { imageSize, imageSizeRefusal } from '../../contract/image-size.js';
import { AssetUpload, AssetsResponse } from '../http/schemas/assets.js';
import type { AssetStore } from '../storage/asset-store.js';
import { Refused, diskFull, storageUnavailable, tooManyUploads, type Refusal } from '../../contract/refusals.js';
import { Gate } from '../http/gate.js';
import { StorageUnavailable } from '../storage/storage.js';
import { mayReachAsset } from '../http/tenancy.js';
import type { DiskSpace } from '../storage/disk-space.js';
import { isNoSpace } from '../../contract/no-space.js';
import { HttpError, NOT_FOUND, badRequest, httpError } from '../http/http-error.js';
import { parseRange } from '../http/byte-range.js';
import { closeUnread, fileTooLarge, uploadTooLarge, watchBody, type BodyWatch } from '../http/upload-limit.js';
import {
  badRequestAnswer,
  errorAnswer,
  fileAnswer,
  json,
  notFoundAnswer,
  rateLimitedAnswer,
  refusalAnswer,
  unauthorizedAnswer,
} from '../http/responses.js';

export interface AssetRoutesOptions {
  assets: AssetStore;
  /** uploads in progress at once (MAX_CONCURRENT_UPLOADS) */
  uploads: Gate;
  /** free space on DATA_DIR's disk */
  disk?: DiskSpace;
  /** the largest body of one upload, multipart framing included (UPLOAD_MAX_BYTES) */
  maxBodyBytes: number;
  /** how long an upload is kept (RETENTION_MS), as the docs say it */
  keptMs: number;
}

const noFile = () => badRequest(CODE.no_file);

export const assetRoutes: FastifyPluginAsyncZod<AssetRoutesOptions> = async (
  app,
  { assets, uploads, disk, maxBodyBytes, keptMs },
) => {
  const kept = describeDuration(keptMs);
  const schema = {
    summary: 'Upload image assets',
    operationId: 'uploadAssets',
    tags: ['assets'],
    description: `multipart/form-data; every part with a filename is stored. At most ${LIMITS.assets.maxFiles} files of ${LIMITS.assets.maxFileBytes / 1024 / 1024} MiB each; PNG, JPEG, WebP, GIF or SVG, judged by their bytes. Assets expire after ${kept}. Pass the keys in the \`assets\` field of a render or frame request.`,
    consumes: ['multipart/form-data'],
    body: AssetUpload,
    bodyExample: { 'earth.jpg': "(the file's bytes)" },
    response: {
      200: json(AssetsResponse, 'Filename -> asset key.', {
        assets: { 'earth.jpg': 'asset_0123456789abcdef0123456789abcdef' },
      }),
      400: badRequestAnswer([
        CODE.no_file,
        CODE.too_many_files,
        CODE.file_too_large,
        CODE.not_an_image,
        CODE.image_too_large,
        CODE.bad_multipart,
      ]),
      401: unauthorizedAnswer(),
      413: errorAnswer(
        'The body is larger than `UPLOAD_MAX_BYTES` (by default 10 files of 25 MiB and 1 MiB of multipart framing): `upload_too_large`, answered as soon as the declared length or the bytes received pass it, and the connection is closed (the rest is not read).',
        [CODE.upload_too_large],
        envelope(CODE.upload_too_large, 'the upload is larger than 263192576 bytes'),
      ),
      429: rateLimitedAnswer(),
      503: refusalAnswer([CODE.too_many_uploads, CODE.storage_full, CODE.storage_unavailable]),
    },
  };
  app.post('/v1/assets', { schema }, async (req, reply) => {
    if (!req.isMultipart()) throw noFile();
    // a body declared too large is refused before a byte of it is read
    const declared = Number(req.headers['content-length']);
    if (declared > maxBodyBytes) return sendTooLarge(req, reply, maxBodyBytes);
    if (!uploads.tryEnter()) {
      stopReading(req, reply);
      throw new Refused(tooManyUploads(uploads.max));
    }
    // a body sent without a length (chunked) is counted as it arrives and cut off the moment it passes the limit
    const body = watchBody(req.raw, maxBodyBytes);
    const parsing = upload(req, assets, disk, body);
    // the slot is held until the parser lets go of the body (after a refusal: once the connection has closed)
    parsing.then(
      () => uploads.leave(),
      () => uploads.leave(),
    );
    try {
      const stored = await Promise.race([parsing, body.passed]);
      if (stored === 'too_large') return sendTooLarge(req, reply, maxBodyBytes);
      if ('refusal' in stored) throw new Refused(stored.refusal);
      // sent as JSON text: the response schema's record would re-shape the map and drop a file named "__proto__"
      return reply.type('application/json; charset=utf-8').send(JSON.stringify({ assets: stored.keys }) as never);
    } catch (err) {
      // a file over its limit is answered now, not after the rest of the body has been read
      stopReading(req, reply);
      throw err;
    } finally {
      body.stop();
    }
  });

  const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/webp', 'image/gif', 'image/svg+xml'];
  const getSchema = {
    summary: 'Download an uploaded asset',
    operationId: 'getAsset',
    tags: ['assets'],
    description:
      'Added: the bytes of an upload, typed by the same sniffing that admitted it, so a page (the editor) can show the ' +
      `image its scene uses. The 128-bit key is the capability; assets expire after ${kept}. SVG is answered with a ` +
      'sandboxing `content-security-policy` so that opening it directly runs nothing. Streamed; HEAD and single ' +
      '`Range` requests are supported.',
    params: z.object({ key: z.string().meta({ description: 'An asset key, `asset_<32 hex>`.' }) }),
    response: {
      200: fileAnswer('The image.', IMAGE_TYPES),
      206: fileAnswer('The requested byte range.', IMAGE_TYPES),
      404: notFoundAnswer('Unknown or expired key'),
      416: errorAnswer('Range not satisfiable: `range_not_satisfiable`, with `content-range: bytes */<size>`.', [
        CODE.range_not_satisfiable,
      ]),
      503: refusalAnswer([CODE.storage_unavailable]),
    },
  };
  app.get('/v1/assets/:key', { schema: getSchema }, async (req, reply) => {
    const { key } = req.params;
    try {
      // keys are tenants: another key's upload is answered as though it did not exist
      const found = (await mayReachAsset(assets, key, req)) ? await assets.head(key) : undefined;
      if (!found) return reply.code(404).send(NOT_FOUND);
      const size = found.bytes;
      reply
        .header('content-type', found.mime)
        .header('cache-control', 'private, max-age=3600')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox")
        .header('accept-ranges', 'bytes');
      let start = 0;
      let end = size - 1;
      if (req.headers.range) {
        const r = parseRange(req.headers.range, size);
        if (r === 'unsatisfiable')
          return reply
            .code(416)
            .header('content-range', `bytes */${size}`)
            .header('content-type', 'application/json; charset=utf-8')
            .send(envelope(CODE.range_not_satisfiable));
        if (r) {
          ({ start, end } = r);
          reply.code(206).header('content-range', `bytes ${start}-${end}/${size}`);
        }
      }
      reply.header('content-length', end - start + 1);
      // HEAD: an empty stream keeps our content-length (Fastify's HEAD handler would set 0 for an empty body)
      if (req.method === 'HEAD') return reply.send(Readable.from([]));
      // streamed: a client that reads slowly (or not at all) holds a stream's buffer, never the whole asset
      return reply.send(await assets.stream(key, { start, end }));
    } catch (err) {
      if (err instanceof StorageUnavailable) throw new Refused(storageUnavailable());
      throw err;
    }
  });
};

/**
 * Answered while the body may still be arriving: no more of it is read (it is unhooked from the parser and paused,
 * so the socket's buffers fill and the client's sending stops), and the connection is closed after the answer;
 * Node would otherwise read the rest to keep the connection alive.
 */
function stopReading(req: FastifyRequest, reply: FastifyReply): void {
  if (req.raw.complete) return;
  req.raw.unpipe();
  req.raw.pause();
  reply.header('connection', 'close');
  closeUnread(req.raw);
}

function sendTooLarge(req: FastifyRequest, reply: FastifyReply, max: number): FastifyReply {
  stopReading(req, reply);
  return reply
    .code(413)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(uploadTooLarge(max)) as never);
}

/** A file part's bytes; past the per-file limit it throws at once instead of letting the parser skip the rest. */
async function readPart(part: MultipartFile): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let n = 0;
  for await (const chunk of part.file as AsyncIterable<Buffer>) {
    n += chunk.length;
    if (n > LIMITS.assets.maxFileBytes) throw fileTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads every file part, checks that each is an image, then stores them all: filename -> asset key. */
async function upload(
  req: FastifyRequest,
  assets: AssetStore,
  disk: DiskSpace | undefined,
  body: BodyWatch,
): Promise<{ keys: Record<string, string> } | { refusal: Refusal }> {
  const files: { name: string; bytes: Buffer }[] = [];
  try {
    // the parser hands over one byte past the file limit, so readPart sees it passed rather than a truncated file
    for await (const part of req.parts({
      limits: { files: LIMITS.assets.maxFiles, fileSize: LIMITS.assets.maxFileBytes + 1 },
    })) {
      if (part.type !== 'file') continue;
      // a file part without a name is skipped, but its bytes must still be read or the parser waits forever
      const bytes = await readPart(part);
      if (part.filename) files.push({ name: part.filename, bytes });
    }
  } catch (err) {
    // limits (FST_* codes) keep their own answers; the parser's own errors ("Unexpected end of multipart data",
    // "Boundary not found") are the client's malformed body, not a server fault
    if (err instanceof HttpError || (err as { code?: string }).code) throw err;
    throw badRequest(CODE.bad_multipart);
  }
  // the body passed its limit while the last part was read: the answer (413) has gone, nothing is stored
  if (body.over) throw httpError(CODE.upload_too_large, uploadTooLarge(body.max).error);
  if (files.length === 0) throw noFile();
  for (const f of files) {
    if (!sniffImage(f.bytes))
      throw badRequest(CODE.not_an_image, `file "${f.name}" is not a PNG, JPEG, WebP, GIF or SVG image`);
    const size = imageSize(f.bytes);
    const tooLarge = size && imageSizeRefusal(size, LIMITS.image);
    if (tooLarge) throw badRequest(CODE.image_too_large, `file "${f.name}" is too large to draw: ${tooLarge}`);
  }
  const total = files.reduce((n, f) => n + f.bytes.length, 0);
  if (disk && (await disk.short(total))) return { refusal: diskFull(await disk.free(), disk.minFreeBytes) };
  const over = assets.reserve(total);
  if (over) return { refusal: over };
  // file names are keys, never properties: "__proto__" or "constructor" is a name like any other
  const saved: [string, string][] = [];
  try {
    for (const f of files) saved.push([f.name, await assets.save(f.bytes, req.apiKeyId ?? undefined)]);
  } catch (err) {
    // all or nothing: what this upload stored goes again (on a bucket that went away, it may not be reachable either)
    for (const [, key] of saved) await assets.remove(key).catch(() => {});
    if (err instanceof StorageUnavailable) return { refusal: storageUnavailable() };
    if (!isNoSpace(err)) throw err;
    disk?.forget();
    return { refusal: diskFull(disk ? await disk.free() : 0, disk?.minFreeBytes ?? 0) };
  } finally {
    assets.release(total);
  }
  return { keys: Object.fromEntries(saved) };
}
