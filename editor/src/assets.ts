// The page's uploaded images: in-source path (/img/<name>) -> asset key, kept in local storage, shown in the
// Images list, uploaded by the Add image… button or a drop, and forgotten once the service no longer has them
// (uploads expire after 24 hours).
import { uploadImages } from './api.js';

const STORE_ASSETS = 'cmrender.editor.assets';
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

export interface UploadsDeps {
  status(text: string, bad: boolean): void;
  /** the mapping changed: the preview must load again */
  changed(): void;
}

export class Uploads {
  private readonly map: Record<string, string> = load();
  private readonly box = $<HTMLDivElement>('assets-box');
  private readonly list = $<HTMLUListElement>('assets');

  constructor(private readonly deps: UploadsDeps) {
    const input = $<HTMLInputElement>('upload');
    input.onchange = () => {
      void this.add([...(input.files ?? [])]);
      input.value = '';
    };
    this.show();
  }

  /**
   * The uploads whose path the source names: a render carries those (every other one would only risk an
   * `unknown_asset` once it expires).
   */
  usedBy(source: string): Record<string, string> {
    return Object.fromEntries(Object.entries(this.map).filter(([path]) => source.includes(JSON.stringify(path))));
  }

  async add(files: readonly File[]): Promise<void> {
    if (files.length === 0) return;
    this.deps.status(`Uploading ${files.map((f) => f.name).join(', ')}…`, false);
    try {
      const keys = await uploadImages(files);
      for (const [name, key] of Object.entries(keys)) this.map[`/img/${name}`] = key;
      this.save();
      this.deps.status(
        `Uploaded: ${Object.keys(keys)
          .map((n) => `/img/${n}`)
          .join(', ')}`,
        false,
      );
      this.deps.changed();
    } catch (e) {
      this.deps.status(`Upload failed: ${e instanceof Error ? e.message : String(e)}`, true);
    }
  }

  /** Uploads expire after 24 hours: forget those the service no longer has. */
  async forgetExpired(): Promise<void> {
    const gone = await Promise.all(
      Object.entries(this.map).map(async ([path, key]) => {
        const r = await fetch(`/v1/assets/${key}`, { method: 'HEAD' }).catch(() => null);
        return r?.status === 404 ? path : null;
      }),
    );
    if (!gone.some(Boolean)) return;
    for (const p of gone) if (p) delete this.map[p];
    this.save();
    this.deps.changed();
  }

  private save(): void {
    try {
      localStorage.setItem(STORE_ASSETS, JSON.stringify(this.map));
    } catch {
      // storage disabled: the mapping lives in the page
    }
    this.show();
  }

  private show(): void {
    const entries = Object.entries(this.map);
    this.box.hidden = entries.length === 0;
    this.list.replaceChildren(
      ...entries.map(([path, key]) => {
        const li = document.createElement('li');
        const code = document.createElement('code');
        code.textContent = path;
        li.append(code, ` → ${key}`);
        return li;
      }),
    );
  }
}

function load(): Record<string, string> {
  try {
    const a = JSON.parse(localStorage.getItem(STORE_ASSETS) ?? '{}') as unknown;
    return a && typeof a === 'object' ? (a as Record<string, string>) : {};
  } catch {
    return {};
  }
}
