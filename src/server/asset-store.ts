// Uploaded assets: stored as DATA_DIR/assets/asset_<32 hex>, images only (judged by their bytes), expiring with retention.
import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rm, stat, writeFile, access } from 'node:fs/promises';
import { join } from 'node:path';
import { ASSET_KEY_RE } from '../contract/limits.js';

export class AssetStore {
  constructor(readonly dir: string) {}

  async init(): Promise<void> {
    await mkdir(this.dir, { recursive: true });
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
    await writeFile(`${p}.tmp`, bytes);
    const { rename } = await import('node:fs/promises');
    await rename(`${p}.tmp`, p);
    return key;
  }

  async sweep(now: number, keepMs: number): Promise<void> {
    for (const name of await readdir(this.dir).catch(() => [] as string[])) {
      const p = join(this.dir, name);
      const st = await stat(p).catch(() => undefined);
      if (st && st.mtimeMs + keepMs <= now) await rm(p, { force: true });
    }
  }
}
