// Uploaded assets: stored as DATA_DIR/assets/asset_<32 hex>, images only (judged by their bytes), expiring with retention.
import { randomBytes } from 'node:crypto';
import { DiskStorage, type Storage } from './storage/storage.js';
import { ASSET_KEY_RE } from '../contract/limits.js';
import { assetsFull, type Refusal } from './durability/admission.js';

export class AssetStore {
  /** bytes of the stored assets (ASSETS_MAX_BYTES counts them) */
  private bytes = 0;
  /** bytes of uploads being written now: they count before they land, so concurrent uploads cannot pass the budget */
  private incoming = 0;

  private readonly files: Storage & { init(): Promise<void> };

  constructor(
    readonly dir: string,
    readonly maxBytes = Infinity,
  ) {
    this.files = new DiskStorage(dir);
  }

  /**
   * Counts the stored bytes; removes partial uploads unless shared (with REDIS_URL another process may be writing
   * one now: those go with the retention sweep instead).
   */
  async init(opts: { shared?: boolean } = {}): Promise<void> {
    await this.files.init();
    this.bytes = 0;
    for (const name of await this.files.list()) {
      // a partial upload left by a crash or a full disk
      if (name.endsWith('.tmp')) {
        if (!opts.shared) await this.files.remove(name);
      } else this.bytes += (await this.files.stat(name))?.bytes ?? 0;
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
    this.pathOf(key); // checks the key
    const st = await this.files.stat(key);
    await this.files.remove(key);
    if (st) this.bytes = Math.max(0, this.bytes - st.bytes);
  }

  pathOf(key: string): string {
    if (!ASSET_KEY_RE.test(key)) throw new Error('bad asset key');
    return this.files.pathOf(key);
  }

  async exists(key: string): Promise<boolean> {
    if (!ASSET_KEY_RE.test(key)) return false;
    return (await this.files.stat(key)) !== undefined;
  }

  async save(bytes: Buffer): Promise<string> {
    const key = `asset_${randomBytes(16).toString('hex')}`;
    await this.files.put(key, bytes);
    this.bytes += bytes.length;
    return key;
  }

  async sweep(now: number, keepMs: number): Promise<void> {
    for (const name of await this.files.list()) {
      const st = await this.files.stat(name);
      if (st && st.mtimeMs + keepMs <= now) {
        await this.files.remove(name);
        if (!name.endsWith('.tmp')) this.bytes = Math.max(0, this.bytes - st.bytes);
      }
    }
  }
}
