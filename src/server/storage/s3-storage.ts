// STORAGE_URL=s3://bucket/prefix: keys are objects of an S3-compatible bucket under prefix/<area>/ (outputs, assets,
// segments), so workers on other machines share them with nothing but the bucket. Files the renderer and ffmpeg need
// are scratch files in a local directory (DATA_DIR/scratch/<area>): written there, uploaded (multipart through
// lib-storage, which aborts the multipart upload when a part fails, so no half object is ever visible), then removed.
// Every failure to reach the bucket or an answer other than "no such key" is a StorageUnavailable. Nothing waits on
// a dead or hung bucket without a bound: each request throws at its request timeout (the SDK only logs a warning
// unless throwOnRequestTimeout is set) and each operation, its retries included, has a total deadline
// (STORAGE_DEADLINE_MS, longer by 1 s a MiB for transfers), past which it is aborted and is a StorageUnavailable too.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
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
export function s3Client(forcePathStyle: boolean, requestTimeoutMs: number): S3Client {
  return new S3Client({
    forcePathStyle,
    // a dead endpoint fails in seconds, not after the OS's TCP timeout; a request with no answer fails at its timeout
    // (without throwOnRequestTimeout the SDK would only log a warning and wait for ever on a bucket that never answers)
    requestHandler: { connectionTimeout: 3_000, requestTimeout: requestTimeoutMs, throwOnRequestTimeout: true },
    maxAttempts: 3,
  });
}

/** 5 MiB, S3's smallest part: an output above it goes up in parts. */
const PART_BYTES = 5 * 1024 * 1024;
/** A transfer's deadline grows by this for each MiB it moves (a floor of 1 MiB/s, far under any bucket's own). */
const MS_PER_MIB = 1_000;
/** /readyz's listing must answer within this, as Redis's ping does. */
const PROBE_MS = 1_000;

export class S3Storage implements Storage {
  constructor(
    private readonly client: S3Client,
    private readonly at: S3Location,
    /** local scratch directory of this store */
    private readonly scratch: string,
    /** one operation's total deadline, retries included (STORAGE_DEADLINE_MS) */
    private readonly deadlineMs = 15_000,
  ) {}

  /** The deadline of an operation that moves `bytes`. */
  private deadlineFor(bytes: number): number {
    return this.deadlineMs + Math.ceil((bytes / (1024 * 1024)) * MS_PER_MIB);
  }

  private keyOf(key: string): string {
    return `${this.at.prefix}${key}`;
  }

  async init(opts: { shared?: boolean } = {}): Promise<void> {
    // unshared scratch holds only what a render of an earlier run of this process left
    if (!opts.shared) await rm(this.scratch, { recursive: true, force: true });
    await mkdir(this.scratch, { recursive: true });
  }

  /**
   * Runs one operation under a total deadline: past it the operation's signal aborts it (the SDK destroys its
   * request) and the caller gets a StorageUnavailable at once, whatever the operation does with the abort.
   */
  private async send<T>(what: (signal: AbortSignal) => Promise<T>, ms = this.deadlineMs): Promise<T> {
    const ctl = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const why = new Error(`the bucket did not finish within ${ms} ms`);
        ctl.abort(why);
        reject(new StorageUnavailable(why));
      }, ms);
    });
    try {
      return await Promise.race([what(ctl.signal), late]);
    } catch (e) {
      throw e instanceof StorageUnavailable ? e : new StorageUnavailable(e);
    } finally {
      clearTimeout(timer);
    }
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    await this.send(
      (abortSignal) =>
        this.client.send(new PutObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(key), Body: bytes }), {
          abortSignal,
        }),
      this.deadlineFor(bytes.length),
    );
  }

  /** Whether the bucket answers a one-key listing within a second (/readyz). */
  async reachable(): Promise<boolean> {
    try {
      await this.send(
        (abortSignal) =>
          this.client.send(new ListObjectsV2Command({ Bucket: this.at.bucket, Prefix: this.at.prefix, MaxKeys: 1 }), {
            abortSignal,
          }),
        PROBE_MS,
      );
      return true;
    } catch {
      return false;
    }
  }

  async scratchPath(key: string): Promise<string> {
    const p = join(this.scratch, key);
    await mkdir(dirname(p), { recursive: true });
    return p;
  }

  async upload(key: string, localPath: string, headers: ObjectHeaders = {}): Promise<void> {
    const bytes = (await stat(localPath)).size;
    await this.send((signal) => this.uploadFile(key, localPath, headers, signal), this.deadlineFor(bytes));
    await rm(localPath, { force: true });
  }

  /** Multipart through lib-storage: an abort (the deadline) aborts the multipart upload, so no half object stays. */
  private async uploadFile(key: string, localPath: string, headers: ObjectHeaders, signal: AbortSignal): Promise<void> {
    const abortController = new AbortController();
    signal.addEventListener('abort', () => abortController.abort(signal.reason), { once: true });
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
      abortController,
    });
    await up.done();
  }

  async download(key: string, dir: string): Promise<string> {
    const p = join(dir, key.replaceAll('/', '_'));
    await mkdir(dir, { recursive: true });
    const r = await this.open(key);
    const body = r.Body as Readable;
    try {
      await this.send(
        (signal) => pipeline(body, createWriteStream(p), { signal }),
        this.deadlineFor(r.ContentLength ?? 0),
      );
    } finally {
      body.destroy();
    }
    return p;
  }

  /** The object's answer (headers, and its body to read), within the deadline. */
  private open(key: string, range?: { start: number; end: number }) {
    return this.send((abortSignal) =>
      this.client.send(
        new GetObjectCommand({
          Bucket: this.at.bucket,
          Key: this.keyOf(key),
          ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
        }),
        { abortSignal },
      ),
    );
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    return (await this.open(key, range)).Body as Readable;
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
    // the copy is made inside the bucket, but its time still grows with the object: the source's size sets it
    const bytes = (await this.stat(from))?.bytes ?? 0;
    await this.send(
      (abortSignal) =>
        this.client.send(new CopyObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(to), CopySource: source }), {
          abortSignal,
        }),
      this.deadlineFor(bytes),
    );
  }

  async stat(key: string): Promise<StoredEntry | undefined> {
    try {
      const h = await this.send((abortSignal) =>
        this.client.send(new HeadObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(key) }), { abortSignal }),
      );
      return { bytes: h.ContentLength ?? 0, mtimeMs: h.LastModified?.getTime() ?? 0, isFile: true };
    } catch (e) {
      const why = e instanceof StorageUnavailable ? e.why : e;
      if (isNotFound(why)) return undefined;
      throw e instanceof StorageUnavailable ? e : new StorageUnavailable(e);
    }
  }

  async remove(key: string): Promise<void> {
    await this.dropScratch(key);
    const under = await this.list(key);
    for (const k of [...under, key])
      await this.send((abortSignal) =>
        this.client.send(new DeleteObjectCommand({ Bucket: this.at.bucket, Key: this.keyOf(k) }), { abortSignal }),
      );
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
      const r = await this.send((abortSignal) =>
        this.client.send(
          new ListObjectsV2Command({ Bucket: this.at.bucket, Prefix: base, Delimiter: '/', ContinuationToken: token }),
          { abortSignal },
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
