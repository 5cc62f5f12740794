// Uploaded assets: stored as asset_<32 hex> in the storage's `assets` area, images only (judged by their bytes),
// expiring with retention. An estimate and a render read them as local files (asset-copies.ts: one download per job). Beside each one,
// `asset_<32 hex>.sha256` keeps the SHA-256 of its bytes computed at the upload (the render cache keys assets by
// content): a job's admission reads those 64 characters instead of reading and hashing up to 25 MiB per path.
// With API_KEYS an upload is its key's alone: `asset_<32 hex>.owner` beside it holds the id of the key that uploaded it
// (http/tenancy.ts), so another key's request neither reads it nor renders with it.
import { DEFAULT_RETENTION_MS } from '../../config/settings.js';
import { createHash, randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Storage } from './storage.js';
import { ASSET_KEY_RE } from '../../contract/limits.js';
import { sniffImage, type ImageType } from '../../contract/mime.js';
import { assetsFull, type Refusal } from '../../contract/refusals.js';
import { AssetCopies, type HeldFiles } from './asset-copies.js';

/** The key of an asset's SHA-256 beside it (not an asset key: ASSET_KEY_RE refuses it, so no route serves it). */
const hashKey = (key: string) => `${key}.sha256`;
/** The key of the id of the API key an asset belongs to (absent: an upload made without keys, open to all). */
const ownerKey = (key: string) => `${key}.owner`;
/** What lies beside an asset (its hash, its owner): not counted by the budget, never served. */
const isBeside = (name: string) => name.endsWith('.sha256') || name.endsWith('.owner');
/** What sniffImage reads of a file (an SVG's XML declaration, comments and doctype before its <svg element). */
const SNIFF_BYTES = 4096;
const sha256Of = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What the store has read, for tests and the bench: admission must not grow with the paths a job names. */
export interface AssetReads {
  /** SHA-256 computations over an asset's bytes (an upload's, or an asset stored without its hash) */
  hashed: number;
  /** stored hashes read */
  hashesRead: number;
  /** local files asked of the storage (a bucket copies the asset down; a directory hands over its own file) */
  downloads: number;
}

export class AssetStore {
  readonly reads: AssetReads = { hashed: 0, hashesRead: 0, downloads: 0 };
  /** bytes of the stored assets (ASSETS_MAX_BYTES counts them) */
  private bytes = 0;
  /** bytes of uploads being written now: they count before they land, so concurrent uploads cannot pass the budget */
  private incoming = 0;

  private readonly copies: AssetCopies;

  constructor(
    private readonly files: Storage,
    readonly maxBytes = Infinity,
    /** how long an upload is kept (RETENTION_MS): said when the budget refuses one */
    readonly keptMs = DEFAULT_RETENTION_MS,
    /** where this process keeps its local copies of assets in a bucket (a temporary directory by default) */
    copiesDir = join(tmpdir(), `cmrender-assets-${randomBytes(4).toString('hex')}`),
  ) {
    this.copies = new AssetCopies(files, copiesDir, () => this.reads.downloads++);
  }

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
      } else if (!isBeside(name)) this.bytes += (await this.files.stat(name))?.bytes ?? 0;
    }
  }

  /** Why `n` more bytes cannot be stored now (the budget), or null; reserves them when they can. */
  reserve(n: number): Refusal | null {
    if (this.bytes + this.incoming + n > this.maxBytes)
      return assetsFull(this.bytes + this.incoming, n, this.maxBytes, this.keptMs);
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
    await this.files.remove(hashKey(key));
    await this.files.remove(ownerKey(key));
    if (st) this.bytes = Math.max(0, this.bytes - st.bytes);
  }

  /**
   * The local files of a job's assets (in-source path -> file), held until release(): a bucket's asset comes down
   * once and serves the job's estimate and each of its renders (asset-copies.ts).
   */
  localFiles(assets: Record<string, string>): Promise<HeldFiles> {
    for (const key of Object.values(assets)) checkKey(key);
    return this.copies.hold(assets);
  }

  /** A job ended: the local copies of its assets go, unless another job holds them now. */
  jobEnded(assets: Record<string, string>): Promise<void> {
    return this.copies.ended(assets);
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

  /**
   * An asset to serve: its size and its type (sniffed from its first 4 KiB, as the upload was), or undefined when
   * there is no such asset or its bytes are not an image. Its bytes are streamed by stream(), never held whole.
   */
  async head(key: string): Promise<{ bytes: number; mime: ImageType } | undefined> {
    if (!ASSET_KEY_RE.test(key)) return undefined;
    const st = await this.files.stat(key);
    if (!st?.isFile || st.bytes === 0) return undefined;
    const mime = sniffImage((await this.read(key, SNIFF_BYTES)) ?? Buffer.alloc(0));
    return mime && { bytes: st.bytes, mime };
  }

  /** The bytes of an asset as a stream (both ends of the range inclusive). */
  async stream(key: string, range: { start: number; end: number }): Promise<Readable> {
    checkKey(key);
    return this.files.get(key, range);
  }

  /**
   * SHA-256 of an asset's bytes (the render cache keys assets by content, never by their random key): the one kept
   * from its upload. An asset stored without one (by a version before the hash was kept) is hashed once and its hash
   * kept from then on.
   */
  async sha256(key: string): Promise<string | undefined> {
    checkKey(key);
    if (!(await this.files.stat(key))) return undefined;
    const kept = await this.keptHash(key);
    if (kept) return kept;
    const h = createHash('sha256');
    for await (const c of await this.files.get(key)) h.update(c as Buffer);
    this.reads.hashed++;
    const hex = h.digest('hex');
    await this.files.put(hashKey(key), Buffer.from(hex));
    return hex;
  }

  private async keptHash(key: string): Promise<string | undefined> {
    if (!(await this.files.stat(hashKey(key)))) return undefined;
    const chunks: Buffer[] = [];
    for await (const c of await this.files.get(hashKey(key))) chunks.push(c as Buffer);
    this.reads.hashesRead++;
    const hex = Buffer.concat(chunks).toString('latin1');
    return /^[0-9a-f]{64}$/.test(hex) ? hex : undefined;
  }

  async exists(key: string): Promise<boolean> {
    if (!ASSET_KEY_RE.test(key)) return false;
    return (await this.files.stat(key)) !== undefined;
  }

  /**
   * The id of the API key an asset belongs to, or undefined when it belongs to nobody (uploaded without keys) or
   * does not exist.
   */
  async ownerOf(key: string): Promise<string | undefined> {
    if (!ASSET_KEY_RE.test(key) || !(await this.files.stat(ownerKey(key)))) return undefined;
    const chunks: Buffer[] = [];
    for await (const c of await this.files.get(ownerKey(key))) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Stores an image; `owner`, the id of the API key that uploads it, makes it that key's alone. */
  async save(bytes: Buffer, owner?: string): Promise<string> {
    const key = `asset_${randomBytes(16).toString('hex')}`;
    // the hash and the owner land first: an asset is never seen without them (they go with the retention if alone)
    this.reads.hashed++;
    await this.files.put(hashKey(key), Buffer.from(sha256Of(bytes)));
    try {
      if (owner !== undefined) await this.files.put(ownerKey(key), Buffer.from(owner, 'utf8'));
      await this.files.put(key, bytes);
    } catch (err) {
      await this.files.remove(hashKey(key)).catch(() => {});
      await this.files.remove(ownerKey(key)).catch(() => {});
      throw err;
    }
    this.bytes += bytes.length;
    return key;
  }

  async sweep(now: number, keepMs: number): Promise<void> {
    for (const name of await this.files.list()) {
      const st = await this.files.stat(name);
      if (st && st.mtimeMs + keepMs <= now) {
        await this.files.remove(name);
        if (!name.endsWith('.tmp') && !isBeside(name)) this.bytes = Math.max(0, this.bytes - st.bytes);
      }
    }
  }
}

function checkKey(key: string): void {
  if (!ASSET_KEY_RE.test(key)) throw new Error('bad asset key');
}
