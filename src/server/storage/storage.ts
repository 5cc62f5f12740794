// Where outputs, assets and chunk segments are kept (STORAGE_URL): a directory of DATA_DIR (DiskStorage, here) or a
// bucket of an S3-compatible object store (s3-storage.ts). Keys are plain names inside one store's root (a key may
// hold one "/" level for a job's segments). The renderer, ffmpeg and the page need local files, which an object
// store has not: they work on *scratch* files, and two explicit steps cross over: download(key) gives a local copy to
// read, upload(key, file) commits a finished local file. A directory store's scratch file for a key is the key's own
// file (its "download" is the file itself and its "upload" nothing more than the renderer's own rename), so the
// default deployment writes nothing twice. The port holds what both stores mean; what a bucket alone has (a presigned
// URL, a reachability probe) is handed by the wiring (data-stores.ts) to the code that uses it.
import { createReadStream } from 'node:fs';
import { copyFile, mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { PARTIAL_SUFFIXES } from '../../render/renderer-port.js';

export interface StoredEntry {
  bytes: number;
  mtimeMs: number;
  /** false for a directory (a job's segments) */
  isFile: boolean;
}

/** The store cannot be reached or refuses (a bucket down, wrong credentials): jobs end with `storage_unavailable`. */
export class StorageUnavailable extends Error {
  constructor(readonly why: unknown) {
    super(`storage unavailable: ${(why as Error)?.message ?? String(why)}`);
  }
}

/** What a job that ended on a StorageUnavailable tells its client (code `storage_unavailable`). */
export const STORAGE_DOWN = 'render failed: the storage of outputs and assets cannot be reached (STORAGE_URL)';

/** What an object is served with straight from the storage. */
export interface ObjectHeaders {
  contentType?: string;
  cacheControl?: string;
}

export interface Storage {
  /** Creates what the store needs (the directory; the local scratch). shared: other processes use the same scratch. */
  init(opts?: { shared?: boolean }): Promise<void>;
  /** Stores bytes under key atomically (a reader never sees half of them). */
  put(key: string, bytes: Buffer): Promise<void>;
  /**
   * The local file a render writes for `key` before upload(). Its directory exists once this resolves. Partial
   * files (`<path>.tmp`, ...) may sit next to it; remove(key) and dropScratch() take them.
   */
  scratchPath(key: string): Promise<string>;
  /**
   * Commits a finished local file under key, atomically; the local file is gone after (moved or uploaded). The
   * headers are stored with an object (what a presigned URL answers with); a file has none.
   */
  upload(key: string, localPath: string, headers?: ObjectHeaders): Promise<void>;
  /** A local file with the bytes of key: the key's own file, or a copy downloaded into dir (the caller's scratch). */
  download(key: string, dir: string): Promise<string>;
  /** The bytes of a key, or a byte range of them (both ends inclusive). */
  get(key: string, range?: { start: number; end: number }): Promise<Readable>;
  /** A second key with the same bytes (the render cache's copy). */
  copy(from: string, to: string): Promise<void>;
  stat(key: string): Promise<StoredEntry | undefined>;
  /** Removes a key (and everything under key/); no error when it is absent. */
  remove(key: string): Promise<void>;
  /**
   * Removes what a failed render of key left locally: the partial files beside its scratch file (PARTIAL_SUFFIXES)
   * and, where the scratch file is a copy of a remote object, that copy; never the stored bytes.
   */
  dropScratch(key: string): Promise<void>;
  /** The keys at the root (or under prefix/), in no particular order. */
  list(prefix?: string): Promise<string[]>;
}

/** A directory on a disk every process sees (DATA_DIR, or a shared volume in cluster mode). */
export class DiskStorage implements Storage {
  readonly root: string;
  constructor(root: string) {
    this.root = resolve(root);
  }

  async init(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  private fileOf(key: string): string {
    return join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const p = this.fileOf(key);
    await mkdir(dirname(p), { recursive: true });
    try {
      await writeFile(`${p}.tmp`, bytes);
      await rename(`${p}.tmp`, p);
    } catch (e) {
      // a write that failed (a full disk) leaves nothing behind
      await rm(`${p}.tmp`, { force: true });
      throw e;
    }
  }

  async scratchPath(key: string): Promise<string> {
    const p = this.fileOf(key);
    await mkdir(dirname(p), { recursive: true });
    return p;
  }

  async upload(key: string, localPath: string): Promise<void> {
    const p = this.fileOf(key);
    if (resolve(localPath) === p) return;
    await mkdir(dirname(p), { recursive: true });
    // another disk (EXDEV) cannot be renamed across: copied beside the key first, then renamed into place
    await rename(localPath, p).catch(async () => {
      try {
        await copyFile(localPath, `${p}.tmp`);
        await rename(`${p}.tmp`, p);
      } finally {
        await rm(`${p}.tmp`, { force: true });
      }
      await rm(localPath, { force: true });
    });
  }

  async download(key: string): Promise<string> {
    return this.fileOf(key);
  }

  async get(key: string, range?: { start: number; end: number }): Promise<Readable> {
    const s = createReadStream(this.fileOf(key), range);
    // a missing file is an error on open: surfaced here rather than mid-stream
    await new Promise<void>((ok, fail) => s.once('open', () => ok()).once('error', fail));
    return s;
  }

  async copy(from: string, to: string): Promise<void> {
    const p = this.fileOf(to);
    try {
      await copyFile(this.fileOf(from), `${p}.tmp`);
      await rename(`${p}.tmp`, p);
    } finally {
      await rm(`${p}.tmp`, { force: true });
    }
  }

  async stat(key: string): Promise<StoredEntry | undefined> {
    const st = await stat(this.fileOf(key)).catch(() => undefined);
    return st && { bytes: st.size, mtimeMs: st.mtimeMs, isFile: st.isFile() };
  }

  async remove(key: string): Promise<void> {
    await rm(this.fileOf(key), { force: true, recursive: true });
  }

  /** A directory's scratch file is the key's own (stored) file: only the partial files beside it go. */
  async dropScratch(key: string): Promise<void> {
    const p = this.fileOf(key);
    await Promise.all(PARTIAL_SUFFIXES.map((s) => rm(`${p}${s}`, { force: true })));
  }

  async list(prefix?: string): Promise<string[]> {
    const names = await readdir(prefix ? this.fileOf(prefix) : this.root).catch(() => [] as string[]);
    return prefix ? names.map((n) => `${prefix}/${n}`) : names;
  }
}
