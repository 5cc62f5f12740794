// STORAGE_URL=s3://bucket/prefix: keys are objects of an S3-compatible bucket under prefix/<area>/ (outputs, assets,
// segments), so workers on other machines share them with nothing but the bucket. Files the renderer and ffmpeg need
// are scratch files in a local directory (DATA_DIR/scratch/<area>): written there, uploaded (multipart through
// lib-storage, which aborts the multipart upload when a part fails, so no half object is ever visible), then removed.
// Every failure to reach the bucket or an answer other than "no such key" is a StorageUnavailable; the SDK's own
// retries and the request timeouts below bound how long one call may take, so nothing waits for a dead bucket.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { PARTIAL_SUFFIXES } from '../../render/renderer-port.js';
import { StorageUnavailable, type ObjectHeaders, type Storage, type StoredEntry } from './storage.js';

export interface S3Location {
  bucket: string;
  /** the key prefix every object of this store starts with, "" or ending with "/" */
  prefix: string;
}

/** s3://bucket/some/prefix → bucket and "some/prefix/" (or "" without a prefix). */
export function parseS3Url(url: string): S3Location {
  const m = /^s3:\/\/([^/]+)\/?(.*)$/.exec(url);
  if (!m) throw new Error(`STORAGE_URL must be file: or s3://bucket[/prefix], got "${url}"`);
  const prefix = m[2]!.replace(/^\/+|\/+$/g, '');
  return { bucket: m[1]!, prefix: prefix ? `${prefix}/` : '' };
}

/**
 * The client: region, credentials and endpoint come from the SDK's own environment (AWS_REGION, AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY, AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL, AWS_REQUEST_CHECKSUM_CALCULATION); path-style
 * addressing is ours to switch (S3_FORCE_PATH_STYLE) because servers other than AWS often need it.
 */
export function s3Client(forcePathStyle: boolean): S3Client {
  return new S3Client({
    forcePathStyle,
    // a dead endpoint fails in seconds, not after the OS's TCP timeout; a stuck transfer fails too
    requestHandler: { connectionTimeout: 3_000, requestTimeout: 60_000 },
    maxAttempts: 3,
  });
}

/** 5 MiB, S3's smallest part: an output above it goes up in parts. */
const PART_BYTES = 5 * 1024 * 1024;

export class S3Storage implements Storage {
  constructor(
    private readonly client: S3Client,
    private readonly at: S3Location,
    /** local scratch directory of this store */
    private readonly scratch: string,
  ) {}

  private keyOf(key: string): string {
    return `${this.at.prefix}${key}`;
  }

  async init(opts: { shared?: boolean } = {}): Promise<void> {
    // unshared scratch holds only what a render of an earlier run of this process left
    if (!opts.shared) await rm(this.scratch, { recursive: true, force: true });
    await mkdir(this.scratch, { recursive: true });
  }

  private async send<T>(what: () => Promise<T>): Promise<T> {
    try {
      return await what();
    } catch (e) {
      throw e instanceof StorageUnavailable ? e : new StorageUnavailable(e);
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.send(() =>
      this.client.send(new PutObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(key), Body: bytes })),
    );
  }

  async scratchPath(key: string): Promise<string> {
    const p = join(this.scratch, key);
    await mkdir(dirname(p), { recursive: true });
    return p;
  }

  async upload(key: string, localPath: string, headers: ObjectHeaders = {}): Promise<void> {
    const up = new Upload({
      client: this.client,
      params: {
        Bucket: this.at.bucket,
        Key: this.keyOf(key),
        Body: createReadStream(localPath),
        ContentType: headers.contentType,
        CacheControl: headers.cacheControl,
      },
      partSize: PART_BYTES,
      queueSize: 2,
    });
    await this.send(() => up.done());
    await rm(localPath, { force: true });
  }

  async download(key: string, dir: string): Promise<string> {
    const p = join(dir, key.replaceAll('/', '_'));
    await mkdir(dir, { recursive: true });
    await this.send(async () => pipeline(await this.get(key), createWriteStream(p)));
    return p;
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const r = await this.send(() =>
      this.client.send(
        new GetObjectCommand({
          Bucket: this.at.bucket,
          Key: this.keyOf(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
      ),
    );
    return r.Body as Readable;
  }

  /** Signed locally (no request): valid for `seconds` unless the credentials themselves expire sooner. */
  async publicUrl(key: string, seconds: number): Promise<string> {
    return this.send(() =>
      getSignedUrl(this.client, new GetObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(key) }), {
        expiresIn: seconds,
      }),
    );
  }

  async copy(from: string, to: string): Promise<void> {
    const source = `${this.at.bucket}/${this.keyOf(from)}`.split('/').map(encodeURIComponent).join('/');
    await this.send(() =>
      this.client.send(new CopyObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(to), CopySource: source })),
    );
  }

  async stat(key: string): Promise<StoredEntry | undefined> {
    try {
      const h = await this.client.send(new HeadObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(key) }));
      return { bytes: h.ContentLength ?? 0, mtimeMs: h.LastModified?.getTime() ?? 0, isFile: true };
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw new StorageUnavailable(e);
    }
  }

  async remove(key: string): Promise<void> {
    await this.dropScratch(key);
    const under = await this.list(key);
    for (const k of [...under, key])
      await this.send(() => this.client.send(new DeleteObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(k) })));
  }

  async dropScratch(key: string): Promise<void> {
    const p = join(this.scratch, key);
    await rm(p, { recursive: true, force: true });
    for (const s of PARTIAL_SUFFIXES) await rm(`${p}${s}`, { force: true });
  }

  async list(prefix?: string): Promise<string[]> {
    const base = this.keyOf(prefix ? `${prefix}/` : '');
    const names: string[] = [];
    let token: string | undefined;
    do {
      const r = await this.send(() =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.at.bucket, Prefix: base, Delimiter: '/', ContinuationToken: token }),
        ),
      );
      for (const o of r.Contents ?? []) if (o.Key) names.push(o.Key.slice(base.length));
      for (const p of r.CommonPrefixes ?? []) if (p.Prefix) names.push(p.Prefix.slice(base.length, -1));
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
    return prefix ? names.map((n) => `${prefix}/${n}`) : names;
  }
}

function isNotFound(e: unknown): boolean {
  const err = e as { name?: string; $metadata?: { httpStatusCode?: number } };
  return err?.name === 'NotFound' || err?.name === 'NoSuchKey' || err?.$metadata?.httpStatusCode === 404;
}
