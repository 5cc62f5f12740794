// Uploaded assets: stored as DATA_DIR/assets/asset_<32 hex>, images only (judged by their bytes), expiring with retention.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { ASSET_KEY_RE } from '../contract/limits.js';
import { assetsFull, type Refusal } from './durability/admission.js';

export class AssetStore {
  /** bytes of the stored assets (ASSETS_MAX_BYTES counts them) */
  private bytes = 0;
  /** bytes of uploads being written now: they count before they land, so concurrent uploads cannot pass the budget */
  private incoming = 0;

  constructor(
    readonly dir: string,
    readonly maxBytes = Infinity,
  ) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    this.bytes = 0;
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const p = join(this.dir, name);
      // a partial upload left by a crash or a full disk
      if (name.endsWith('.tmp')) await rm(p, { force: true });
      else this.bytes += (await stat(p).catch(() => undefined))?.size ?? 0;
    }
  }

  /** Why `n` more bytes cannot be stored now (the budget), or null; reserves them when they can. */
  reserve(n: number): Refusal | null {
    if (this.bytes + this.incoming + n > this.maxBytes) return assetsFull(this.bytes + this.incoming, n, this.maxBytes);
    this.incoming += n;
    return null;
  }

  /** Gives back a reservation (stored or not). */
  release(n: number): void {
    this.incoming = Math.max(0, this.incoming - n);
  }

  /** Deletes a stored asset (an upload that could not be completed). */
  async remove(key: string): Promise<void> {
    const p = this.pathOf(key);
    const st = await stat(p).catch(() => undefined);
    await rm(p, { force: true });
    if (st) this.bytes = Math.max(0, this.bytes - st.size);
  }

  pathOf(key: string): string {
    if (!ASSET_KEY_RE.test(key)) throw new Error('bad asset key');
    return join(this.dir, key);
  }

  async exists(key: string): Promise<boolean> {
    if (!ASSET_KEY_RE.test(key)) return false;
    try {
      await access(this.pathOf(key));
      return true;
    } catch {
      return false;
    }
  }

  async save(bytes: Buffer): Promise<string> {
    const key = `asset_${randomBytes(16).toString('hex')}`;
    const p = this.pathOf(key);
    try {
      await writeFile(`${p}.tmp`, bytes);
      await rename(`${p}.tmp`, p);
    } catch (e) {
      // a write that failed (a full disk) leaves nothing behind
      await rm(`${p}.tmp`, { force: true });
      throw e;
    }
    this.bytes += bytes.length;
    return key;
  }

  async sweep(now: number, keepMs: number): Promise<void> {
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const p = join(this.dir, name);
      const st = await stat(p).catch(() => undefined);
      if (st && st.mtimeMs + keepMs <= now) {
        await rm(p, { force: true });
        if (!name.endsWith('.tmp')) this.bytes = Math.max(0, this.bytes - st.size);
      }
    }
  }
}
