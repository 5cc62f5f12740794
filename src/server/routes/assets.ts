// POST /v1/assets: multipart upload of images -> {"assets": {"<filename>": "asset_<32 hex>"}}
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../schemas.js';
import { LIMITS } from '../limits.js';
import { sniffImage } from '../mime.js';
import type { AssetStore } from '../assets.js';

export function assetRoutes(app: FastifyInstance, assets: AssetStore): void {
  app.post('/v1/assets', async (req, reply) => {
    if (!req.isMultipart()) throw new HttpError(400, 'no_file', 'expected a multipart/form-data body with at least one file');
    const files: { name: string; bytes: Buffer }[] = [];
    for await (const part of req.parts({ limits: { files: LIMITS.assets.maxFiles, fileSize: LIMITS.assets.maxFileBytes } })) {
      if (part.type !== 'file' || !part.filename) continue;
      const bytes = await part.toBuffer();
      files.push({ name: part.filename, bytes });
    }
    if (files.length === 0) throw new HttpError(400, 'no_file', 'expected a multipart/form-data body with at least one file');
    for (const f of files) {
      if (!sniffImage(f.bytes)) throw new HttpError(400, 'not_an_image', `file "${f.name}" is not a PNG, JPEG, WebP, GIF or SVG image`);
    }
    const out: Record<string, string> = {};
    for (const f of files) out[f.name] = await assets.save(f.bytes);
    return reply.send({ assets: out });
  });
}
