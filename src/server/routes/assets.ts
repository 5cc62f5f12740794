// POST /v1/assets: multipart upload of images -> {"assets": {"<filename>": "asset_<32 hex>"}}
import type { FastifyInstance, FastifyRequest, FastifyReply } from 'fastify';
import { HttpError } from '../schemas.js';
import { LIMITS } from '../../contract/limits.js';
import { sniffImage } from '../../contract/mime.js';
import type { AssetStore } from '../asset-store.js';
import { Gate, sendRefusal, tooManyUploads } from '../durability/admission.js';

export function assetRoutes(app: FastifyInstance, assets: AssetStore, uploads: Gate = new Gate(Infinity)): void {
  app.post('/v1/assets', async (req, reply) => {
    if (!req.isMultipart()) throw new HttpError(400, 'no_file', 'expected a multipart/form-data body with at least one file');
    if (!uploads.tryEnter()) return sendRefusal(reply, tooManyUploads(uploads.max));
    try {
      return await upload(req, reply, assets);
    } finally {
      uploads.leave();
    }
  });
}

async function upload(req: FastifyRequest, reply: FastifyReply, assets: AssetStore) {
  const files: { name: string; bytes: Buffer }[] = [];
  try {
    for await (const part of req.parts({ limits: { files: LIMITS.assets.maxFiles, fileSize: LIMITS.assets.maxFileBytes } })) {
      if (part.type !== 'file') continue;
      if (!part.filename) {
        // a file part without a name is skipped, but its bytes must still be read or the parser waits forever
        await part.toBuffer();
        continue;
      }
      const bytes = await part.toBuffer();
      files.push({ name: part.filename, bytes });
    }
  } catch (err) {
    // limits (FST_* codes) keep their own answers; the parser's own errors ("Unexpected end of multipart data",
    // "Boundary not found") are the client's malformed body, not a server fault
    if (err instanceof HttpError || (err as { code?: string }).code) throw err;
    throw new HttpError(400, 'bad_multipart', 'malformed multipart/form-data body');
  }
  if (files.length === 0) throw new HttpError(400, 'no_file', 'expected a multipart/form-data body with at least one file');
  for (const f of files) {
    if (!sniffImage(f.bytes)) throw new HttpError(400, 'not_an_image', `file "${f.name}" is not a PNG, JPEG, WebP, GIF or SVG image`);
  }
  const out: Record<string, string> = {};
  for (const f of files) out[f.name] = await assets.save(f.bytes);
  return reply.send({ assets: out });
}
