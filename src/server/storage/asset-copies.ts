// The local files of the assets in use in this process, one per asset key: a job's admission estimate and every
// render of it (a frame, a video, each chunk of a long one) read the same copy, so an asset kept in a bucket comes
// down once per job, not once per step. A copy goes when the job that used it ends and nothing holds it; one left
// (a job ended in another process) goes KEEP_MS after its last use, at the next hold. A directory's assets are their
// own files: nothing is copied (storage.ts's download).
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Storage } from './storage.js';

/** How long a copy nobody holds is kept for the next step of its job. */
export const KEEP_MS = 10 * 60_000;

interface Copy {
  file: Promise<string>;
  users: number;
  lastUsed: number;
  dir: string;
  /** its job ended while it was held: it goes when the last holder lets it go */
  drop: boolean;
}

/** Local files held for one step of a job; release() when the step is done with them. */
export interface HeldFiles {
  /** in-source path -> local file */
  files: Record<string, string>;
  release(): void;
}

export class AssetCopies {
  private readonly copies = new Map<string, Copy>();
  /** copies made, naming each one's directory */
  private made = 0;

  constructor(
    private readonly storage: Storage,
    /** this process's own directory of copies (two processes never write one file) */
    private readonly root: string,
    /** told of each download (AssetStore's reads) */
    private readonly downloaded: () => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** The local files of an asset map (in-source path -> key), held until release(). */
  async hold(assets: Record<string, string>): Promise<HeldFiles> {
    await this.sweep();
    const held: Copy[] = [];
    const release = () => {
      const t = this.now();
      for (const c of held.splice(0)) {
        c.users--;
        c.lastUsed = t;
      }
      void this.remove((_, c) => c.users === 0 && c.drop).catch(() => {});
    };
    try {
      const local = new Map<string, string>();
      for (const key of new Set(Object.values(assets))) {
        const c = this.copyOf(key);
        c.users++;
        held.push(c);
        local.set(key, await c.file);
      }
      // in-source paths are keys, never properties (Object.fromEntries defines "__proto__" as an own key)
      const files = Object.fromEntries(Object.entries(assets).map(([path, key]) => [path, local.get(key)!]));
      return { files, release };
    } catch (err) {
      release();
      throw err;
    }
  }

  private copyOf(key: string): Copy {
    const kept = this.copies.get(key);
    if (kept) return kept;
    const dir = join(this.root, `${key}-${++this.made}`);
    const c: Copy = { file: this.storage.download(key, dir), users: 0, lastUsed: this.now(), dir, drop: false };
    this.downloaded();
    this.copies.set(key, c);
    // a download that failed is not kept: the next step tries again
    c.file.catch(() => {
      if (this.copies.get(key) === c) this.copies.delete(key);
    });
    return c;
  }

  /** A job ended: the copies of its assets go, each once nothing holds it (a render settling after a cancel). */
  async ended(assets: Record<string, string>): Promise<void> {
    const keys = new Set(Object.values(assets));
    for (const [key, c] of this.copies) if (keys.has(key)) c.drop = true;
    await this.remove((_, c) => c.users === 0 && c.drop);
  }

  /** Removes the copies nobody has held for KEEP_MS. */
  private sweep(): Promise<void> {
    const t = this.now();
    return this.remove((_, c) => c.users === 0 && t - c.lastUsed >= KEEP_MS);
  }

  private async remove(gone: (key: string, c: Copy) => boolean): Promise<void> {
    const removed = [...this.copies].filter(([key, c]) => gone(key, c));
    if (removed.length === 0) return;
    for (const [key] of removed) this.copies.delete(key);
    // each copy's own directory: a copy of the same key made meanwhile is a new one, in a directory of its own
    for (const [, c] of removed) await rm(c.dir, { recursive: true, force: true });
  }
}
