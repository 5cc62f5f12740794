// Keys are tenants. A job made with an API key records that key's id (JobRecord.owner, never in a public view), and a
// request presenting another key is answered as though the job did not exist: 404 for its view, its events, its
// output and its cancel, so one client can neither read nor stop another's work, nor learn that an id exists.
//
// Uploads are the same: an asset uploaded with a key is that key's (storage/asset-store.ts keeps the owner beside
// it): another key's GET /v1/assets/{key} is 404, and a job of another key that names it is 400 `invalid_assets`.
//
// A request that presents no key is not a tenant: it reaches a job only where keys are not asked of it (reads with
// API_KEYS_READS off, by the job's unguessable id, as the contract's v0 had it). A job made without a key (keys off)
// belongs to nobody and stays open to all.
import type { FastifyRequest } from 'fastify';
import type { AssetStore } from '../storage/asset-store.js';

/** Whether the request may see a job of this owner (the key id that made it, if any). */
export function mayReach(owner: string | undefined, req: FastifyRequest): boolean {
  return owner === undefined || req.apiKeyId === null || req.apiKeyId === owner;
}

/** Whether the request may read this asset (its owner's rule is a job's). */
export async function mayReachAsset(assets: AssetStore, key: string, req: FastifyRequest): Promise<boolean> {
  return req.apiKeyId === null || mayReach(await assets.ownerOf(key), req);
}

/** An Idempotency-Key as the index keeps it: one key's value never names another key's job. */
export const scopedIdempotencyKey = (key: string, req: FastifyRequest): string =>
  req.apiKeyId ? `${req.apiKeyId}:${key}` : key;
