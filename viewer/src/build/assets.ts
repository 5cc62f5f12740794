// Images and the font. An image is fetched by its in-source path on the page's own origin (the render service's
// page fence answers only the viewer's files and the job's assets), unless the job maps the path to another URL
// (the editor maps paths to uploaded assets). Textures: sRGB, three.js defaults (flipY, mipmaps, linear
// filtering), cached per path for the whole job (viewer.md §5.7).
import * as THREE from 'three';
import { FONT_SERVED_NAME } from '../font-file.js';

export interface ImageEntry {
  status: 'loading' | 'ok' | 'error';
  image: HTMLImageElement | null;
  texture: THREE.Texture | null;
  promise: Promise<void>;
}

/** A 1×1 black texture: what a missing or undecodable image samples as. */
export const BLACK_TEXTURE: THREE.DataTexture = (() => {
  const t = new THREE.DataTexture(new Uint8Array([0, 0, 0, 255]), 1, 1);
  t.colorSpace = THREE.SRGBColorSpace;
  t.needsUpdate = true;
  return t;
})();

export class ImageStore {
  private map = new Map<string, ImageEntry>();
  /** in-source path -> URL to fetch it from, for this job; a path not in it is fetched as itself */
  urls = new Map<string, string>();
  /** Called when a lazily started load finishes (the viewer may redraw). */
  onSettled: ((path: string) => void) | null = null;
  /** how many loads have finished (ok or failed) since the last clear(): frames drawn before differ */
  settled = 0;

  get pending(): number {
    let n = 0;
    for (const e of this.map.values()) if (e.status === 'loading') n++;
    return n;
  }

  entry(path: string): ImageEntry {
    const e = this.map.get(path);
    if (e) return e;
    const img = new Image();
    img.decoding = 'sync';
    const entry: ImageEntry = { status: 'loading', image: null, texture: null, promise: Promise.resolve() };
    entry.promise = new Promise<void>((resolve) => {
      img.onload = () => {
        entry.status = 'ok';
        entry.image = img;
        const tex = new THREE.Texture(img);
        tex.colorSpace = THREE.SRGBColorSpace;
        tex.needsUpdate = true;
        entry.texture = tex;
        this.settled++;
        resolve();
        this.onSettled?.(path);
      };
      img.onerror = () => {
        entry.status = 'error';
        this.settled++;
        resolve();
        this.onSettled?.(path);
      };
    });
    img.src = new URL(this.urls.get(path) ?? path, location.origin + '/').href;
    this.map.set(path, entry);
    return entry;
  }

  /** Whether a path has finished loading (ok or failed). */
  settledPath(path: string): boolean {
    const e = this.map.get(path);
    return !!e && e.status !== 'loading';
  }

  /** Whether a path's load ended in failure. */
  failed(path: string): boolean {
    return this.map.get(path)?.status === 'error';
  }

  /** Load every path; resolves with the paths that failed. */
  async loadAll(paths: Iterable<string>): Promise<string[]> {
    const list = [...paths];
    const entries = list.map((p) => this.entry(p));
    await Promise.all(entries.map((e) => e.promise));
    return list.filter((_, i) => entries[i].status === 'error');
  }

  /** The texture for a path (starting a lazy load if needed); black until loaded or when it failed. */
  texture(path: string): THREE.Texture {
    const e = this.entry(path);
    return e.texture ?? BLACK_TEXTURE;
  }

  clear(): void {
    for (const e of this.map.values()) e.texture?.dispose();
    this.map.clear();
    this.urls.clear();
    this.settled = 0;
  }
}

let fontPromise: Promise<ArrayBuffer | null> | null = null;
/** DM Sans Bold, fetched once per page from the viewer's own directory. */
export function fetchFont(): Promise<ArrayBuffer | null> {
  fontPromise ??= fetch(new URL(`./${FONT_SERVED_NAME}`, import.meta.url).href)
    .then((r) => (r.ok ? r.arrayBuffer() : null))
    .catch(() => null)
    .then((buf) => {
      if (!buf) fontPromise = null;
      return buf;
    }); // a failed fetch is retried by the next load
  return fontPromise;
}
