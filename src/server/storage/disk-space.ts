// Free space on the disk that holds DATA_DIR, asked of the file system (statfs) at most once a second: below
// DISK_MIN_FREE_BYTES the service takes no new work (503 storage_full, /healthz 503), so a full disk is answered
// before a write fails half way.
import { statfs } from 'node:fs/promises';

const CACHE_MS = 1000;

export class DiskSpace {
  private at = 0;
  private last = Infinity;

  constructor(
    private readonly dir: string,
    readonly minFreeBytes: number,
  ) {}

  /** Bytes free for this process (cached for a second; Infinity when the file system cannot say). */
  async free(): Promise<number> {
    if (Date.now() - this.at < CACHE_MS) return this.last;
    try {
      const s = await statfs(this.dir);
      this.last = Number(s.bavail) * Number(s.bsize);
    } catch {
      this.last = Infinity;
    }
    this.at = Date.now();
    return this.last;
  }

  /** Forget the cached answer (after a write failed for space, or space was freed). */
  forget(): void {
    this.at = 0;
  }

  /** True when fewer than `needed` bytes would be left above the minimum. */
  async short(needed = 0): Promise<boolean> {
    return (await this.free()) - needed < this.minFreeBytes || (await this.free()) <= 0;
  }
}
