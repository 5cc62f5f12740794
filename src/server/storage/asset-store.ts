// Uploaded assets: stored as asset_<32 hex> in the storage's `assets` area, images only (judged by their bytes),
// expiring with retention. A render reads them as local files, downloaded into its job's scratch.
import { createHash, randomBytes } from 'node:crypto';
import type { Storage } from './storage.js';
import { ASSET_KEY_RE } from '../../contract/limits.js';
import { assetsFull, type Refusal } from '../durability/admission.js';

export class AssetStore {
  /** bytes of the stored assets (ASSETS_MAX_BYTES counts them) */
  private bytes = 0;
  /** bytes of uploads being written now: they count before they land, so concurrent uploads cannot pass the budget */
  private incoming = 0;

  constructor(
    private readonly files: Storage,
    readonly maxBytes = Infinity,
  ) {}

  /**
   * Counts the stored bytes; removes partial uploads unless shared (with REDIS_URL another process may be writing
   * one now: those go with the retention sweep instead).
   */
  async init(opts: { shared?: boolean } = {}): Promise<void> {
    await this.files.init(opts);
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
    checkKey(key);
    const st = await this.files.stat(key);
    await this.files.remove(key);
    if (st) this.bytes = Math.max(0, this.bytes - st.bytes);
  }

  /** The local files of a job's assets (in-source path -> file), downloaded into dir where the storage is remote. */
  async localFiles(assets: Record<string, string>, dir: string): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [path, key] of Object.entries(assets)) {
      checkKey(key);
      out[path] = await this.files.download(key, dir);
    }
    return out;
  }

  /** The bytes of an asset (the first `max` of them), or undefined when there is no such asset. */
  async read(key: string, max?: number): Promise<Buffer | undefined> {
    if (!ASSET_KEY_RE.test(key)) return undefined;
    const st = await this.files.stat(key);
    if (!st?.isFile) return undefined;
    if (st.bytes === 0) return Buffer.alloc(0);
    const end = Math.min(st.bytes, max ?? st.bytes) - 1;
    const chunks: Buffer[] = [];
    for await (const c of await this.files.get(key, { start: 0, end })) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  }

  /** SHA-256 of an asset's bytes (the render cache keys assets by content, never by their random key). */
  async sha256(key: string): Promise<string | undefined> {
    checkKey(key);
    if (!(await this.files.stat(key))) return undefined;
    const h = createHash('sha256');
    for await (const c of await this.files.get(key)) h.update(c as Buffer);
    return h.digest('hex');
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

function checkKey(key: string): void {
  if (!ASSET_KEY_RE.test(key)) throw new Error('bad asset key');
}
