// The input of POST /v1/vectorize, checked at the door: the image is an uploaded asset named by the in-source path
// `source`, or inline base64 `image`. Either way its bytes must say PNG or JPEG (else 400 not_an_image), and the job
// records an asset key, never the image: an inline image is stored in the asset store (expiring like any upload), so
// the journal stays small and a restarted service finds the image again. It is stored like an upload, within
// ASSETS_MAX_BYTES, but only once its job is admitted (jobs/submit.ts reserves its bytes at the door and calls
// storeInline() last): a refused POST leaves nothing on disk.
import { sniffImage } from '../../contract/mime.js';
import { CODE } from '../../contract/error-codes.js';
import type { AssetStore } from '../storage/asset-store.js';
import { badRequest } from '../../contract/service-error.js';

/** The in-source path an inline image is recorded under. */
export const INLINE_IMAGE_PATH = '/inline-image';

export interface VectorizeBody {
  source?: string;
  image?: string;
}

/** A job's input: its source and asset map, and an inline image still to be stored (storeInline). */
export interface JobInput {
  source: string;
  assets: Record<string, string>;
  /** an inline image's bytes, checked and not yet stored */
  inline?: Buffer;
}

export async function vectorizeInput(
  assets: AssetStore,
  body: VectorizeBody,
  assetMap: Record<string, string>,
): Promise<JobInput> {
  if (body.image !== undefined) {
    const bytes = Buffer.from(body.image, 'base64');
    traceable(bytes, 'image');
    return { source: INLINE_IMAGE_PATH, assets: {}, inline: bytes };
  }
  const source = body.source!;
  const key = assetMap[source];
  if (!key)
    throw badRequest(
      CODE.unknown_asset,
      `source "${source}" is not a path of assets: map it to the key of an uploaded image`,
    );
  traceable((await assets.read(key, 4096)) ?? Buffer.alloc(0), `assets["${source}"]`);
  return { source, assets: { [source]: key } };
}

/** The input's asset map once its inline image, if any, is stored, its API key's (the job is admitted by then). */
export async function storeInline(
  assets: AssetStore,
  input: JobInput,
  owner: string | undefined,
): Promise<Record<string, string>> {
  if (!input.inline) return input.assets;
  return { [INLINE_IMAGE_PATH]: await assets.save(input.inline, owner) };
}

/** PNG or JPEG by its bytes (what the tracer decodes), else 400 not_an_image. */
function traceable(bytes: Buffer, what: string): void {
  const type = sniffImage(bytes);
  if (type === 'image/png' || type === 'image/jpeg') return;
  throw badRequest(
    CODE.not_an_image,
    `${what} is ${type ? `a ${type} image` : 'not an image'}: vectorize reads PNG or JPEG line drawings`,
  );
}
