// Where outputs, assets and chunk segments are kept: one small interface so that an object store can stand in for
// the shared DATA_DIR later. Keys are plain names inside one store's root (a key may hold one "/" level for a
// job's segments). The renderer, ffmpeg and the page still need files: pathOf() gives the local path, which an
// object store would back with a local cache.
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export interface StoredEntry {
  bytes: number;
  mtimeMs: number;
  /** false for a directory (a job's segments) */
  isFile: boolean;
}

export interface Storage {
  /** The local file behind a key (for tools that read or write files themselves). */
  pathOf(key: string): string;
  /** Stores bytes under key atomically: written as key.tmp, then renamed (a reader never sees half a file). */
  put(key: string, bytes: Buffer): Promise<void>;
  /** The bytes of a key, or a byte range of them (both ends inclusive). */
  get(key: string, range?: { start: number; end: number }): ReadStream;
  stat(key: string): Promise<StoredEntry | undefined>;
  /** Removes a key (and everything under it); no error when it is absent. */
  remove(key: string): Promise<void>;
  /** The keys at the root (or under prefix/), in no particular order. */
  list(prefix?: string): Promise<string[]>;
}

/** A directory on a disk every process sees (DATA_DIR on a shared volume). */
export class DiskStorage implements Storage {
  constructor(readonly root: string) {}

  async init(): Promise<void> {
    await mkdir(this.root, { recursive: true });
  }

  pathOf(key: string): string {
    return join(this.root, key);
  }

  async put(key: string, bytes: Buffer): Promise<void> {
    const p = this.pathOf(key);
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

  get(key: string, range?: { start: number; end: number }): ReadStream {
    return createReadStream(this.pathOf(key), range);
  }

  async stat(key: string): Promise<StoredEntry | undefined> {
    const st = await stat(this.pathOf(key)).catch(() => undefined);
    return st && { bytes: st.size, mtimeMs: st.mtimeMs, isFile: st.isFile() };
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true, recursive: true });
  }

  async list(prefix?: string): Promise<string[]> {
    const names = await readdir(prefix ? this.pathOf(prefix) : this.root).catch(() => [] as string[]);
    return prefix ? names.map((n) => `${prefix}/${n}`) : names;
  }
}
