// Assets are uploaded once and named by key afterwards: the upload, its answer and the map a request gives to use
// them, so a job record holds keys, never image bytes.
import { z } from 'zod';
import { ASSET_KEY_RE, LIMITS } from '../../../contract/limits.js';

export const Assets = z
  .record(
    z.string().min(1, { error: 'assets keys must be non-empty paths' }),
    z
      .string({ error: 'assets values must be asset keys (asset_<32 hex>)' })
      .regex(ASSET_KEY_RE, { error: 'assets values must be asset keys (asset_<32 hex>)' }),
    { error: 'assets must be an object mapping in-source paths to asset keys' },
  )
  .refine((m) => Object.keys(m).length <= LIMITS.assets.maxPerJob, {
    error: `assets may name at most ${LIMITS.assets.maxPerJob} in-source paths`,
  })
  .optional()
  .meta({
    description: `Maps an in-source path ("/img/earth.jpg") to a key returned by POST /v1/assets; at most ${LIMITS.assets.maxPerJob} paths.`,
    examples: [{ '/img/earth.jpg': 'asset_0123456789abcdef0123456789abcdef' }],
  });

export const AssetsResponse = z
  .object({ assets: z.record(z.string(), z.string().regex(ASSET_KEY_RE)) })
  .meta({ id: 'AssetsResponse' });

/**
 * The body of POST /v1/assets as documented: multipart/form-data, one file per part. The handler streams the parts
 * (Fastify's request body stays empty), so as a validator this schema accepts anything; the handler checks the files.
 */
export const AssetUpload = z
  .unknown()
  .meta({ type: 'object', additionalProperties: { type: 'string', contentEncoding: 'binary' } });
