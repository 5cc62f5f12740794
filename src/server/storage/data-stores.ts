// The stores every process keeps, built one way for the embedded service, a cluster API process and a render worker:
// outputs (with the output byte budget), uploaded assets and chunk segments, each in its own area of the storage
// STORAGE_URL names (file: DATA_DIR/<area>, s3://bucket/prefix: objects under prefix/<area>/). This is the one place
// that knows which storage is in use, so it hands what a bucket alone can do (a presigned URL of an output, whether the
// bucket answers) to the code that uses it.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Config } from '../../config/settings.js';
import type { LifecycleStore } from '../jobs/store/port.js';
import { OutputStore, type SharedByteCount } from './output-store.js';
import { AssetStore } from './asset-store.js';
import { DiskStorage, type Storage } from './storage.js';
import type { S3Storage } from './s3-storage.js';

/** The S3 driver, loaded only when STORAGE_URL names a bucket: the AWS SDK costs a default start 0.3 to 0.7 s. */
let s3Driver: typeof import('./s3-storage.js') | undefined;

/** Loads what STORAGE_URL needs; call before openStorage() (services, the composition roots). */
export async function loadStorage(config: Pick<Config, 'storageUrl'>): Promise<void> {
  if ((config.storageUrl || 'file:') !== 'file:') s3Driver ??= await import('./s3-storage.js');
}

export type StorageConfig = Pick<
  Config,
  'dataDir' | 'storageUrl' | 's3ForcePathStyle' | 'storageRequestTimeoutMs' | 'storageDeadlineMs'
>;
export type Area = 'outputs' | 'assets' | 'segments' | 'cache';

/** one client per process and URL (it keeps the connections) */
const clients = new Map<string, S3Client>();

export function openStorage(config: StorageConfig, area: Area): Storage {
  return openBucket(config, area) ?? new DiskStorage(join(config.dataDir, area));
}

/** The area in the bucket STORAGE_URL names, or undefined when it names the disk (file:). */
function openBucket(config: StorageConfig, area: Area): S3Storage | undefined {
  const url = config.storageUrl || 'file:';
  if (url === 'file:') return undefined;
  if (!s3Driver) throw new Error('loadStorage() was not called before opening an s3:// storage');
  const { S3Storage, parseS3Url, s3Client } = s3Driver;
  const at = parseS3Url(url);
  const id = `${url} ${config.s3ForcePathStyle} ${config.storageRequestTimeoutMs}`;
  let client = clients.get(id);
  if (!client) clients.set(id, (client = s3Client(config.s3ForcePathStyle, config.storageRequestTimeoutMs)));
  return new S3Storage(
    client,
    { ...at, prefix: `${at.prefix}${area}/` },
    join(config.dataDir, 'scratch', area),
    config.storageDeadlineMs,
  );
}

/** Where jobs' downloaded inputs (assets, segments to join) are put while they run: one directory per job. */
export function scratchRoot(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'scratch', 'jobs');
}

/** Where local copies of assets in a bucket are kept while jobs use them (storage/asset-copies.ts). */
export function assetCopiesRoot(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'scratch', 'assets');
}

/** One job's (or one part's) scratch directory, removed when it ends. */
export function jobScratch(config: Pick<Config, 'dataDir'>, id: string): string {
  return join(scratchRoot(config), id);
}

export function dataStores(
  config: Pick<Config, 'outputMaxBytes' | 'assetsMaxBytes' | 'retentionMs'> & StorageConfig,
  store: LifecycleStore,
  log: Logger,
  now: () => number,
  /** with REDIS_URL: the output bytes counted once across processes */
  sharedCount?: SharedByteCount,
): DataStores {
  const bucket = openBucket(config, 'outputs');
  return {
    outputs: new OutputStore({
      files: bucket ?? new DiskStorage(join(config.dataDir, 'outputs')),
      store,
      maxBytes: config.outputMaxBytes,
      retentionMs: config.retentionMs,
      log,
      now,
      sharedCount,
      ...(bucket ? { presign: (key: string, seconds: number) => bucket.publicUrl(key, seconds) } : {}),
    }),
    assets: new AssetStore(
      openStorage(config, 'assets'),
      config.assetsMaxBytes,
      config.retentionMs,
      // this process's own (a Redis-mode worker may share DATA_DIR)
      join(assetCopiesRoot(config), randomBytes(4).toString('hex')),
    ),
    ...(bucket ? { answers: () => bucket.reachable() } : {}),
  };
}

export interface DataStores {
  outputs: OutputStore;
  assets: AssetStore;
  /** with a bucket: whether it answers a listing within a second (/readyz); a directory has no such check */
  answers?: () => Promise<boolean>;
}
