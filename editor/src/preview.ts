// The live preview: the service's own drawer (viewer/src/page-api.ts, the page API the renderer drives) on a canvas
// of this page, fed by values evaluated here by the same language package. Or, with the server switch on, the
// service's frame at the same time and size (/v1/frame), cached per source, assets, size and time.
import * as THREE from 'three';
import { createPageApi, type CmViewerApi, type DrawError } from '../../viewer/src/page-api.js';
import type { Program, Value } from '../../src/lang/index.js';
import { runJob } from './api.js';

export interface PreviewInput {
  program: Program;
  source: string;
  /** the value at t = 0, whose design frame sets the aspect */
  aspect: number;
  t: number;
  /** the preview is playing (the server preview then asks for fewer distinct times) */
  playing?: boolean;
  /** in-source path -> asset key */
  assets: Record<string, string>;
  /** the scene's arguments (the parameters panel's); the program was compiled with them */
  args?: Record<string, unknown>;
}

export type PreviewOutcome = { ok: true } | { ok: false; message: string };

/** Pixel size of a canvas of `aspect` that fits in a box of w × h CSS pixels. */
export function fitSize(w: number, h: number, aspect: number): { width: number; height: number } {
  const width = Math.max(16, Math.floor(Math.min(w, h * aspect)));
  return { width, height: Math.max(16, Math.round(width / aspect)) };
}

export class Preview {
  readonly api: CmViewerApi | null;
  readonly bootError: string | null;
  private loadedKey = '';
  private seq = 0;
  private serverCache = new Map<string, string>();
  private serverSeq = 0;
  /** canvas size in pixels (also the server preview's size) */
  width = 0;
  height = 0;

  constructor(
    readonly canvas: HTMLCanvasElement,
    readonly serverImage: HTMLImageElement,
  ) {
    let api: CmViewerApi | null = null;
    let bootError: string | null = null;
    try {
      api = createPageApi(canvas, THREE.REVISION);
    } catch (e) {
      bootError = `WebGL is not available here (${e instanceof Error ? e.message : String(e)}): use the server preview`;
    }
    this.api = api;
    this.bootError = bootError;
  }

  /** CSS size of the canvas (its pixel size over the device pixel ratio) */
  private cssWidth = 0;
  private cssHeight = 0;

  /**
   * Sizes the canvas to fit `box` (CSS pixels) at the scene's aspect, with as many pixels as the screen shows there
   * (device pixel ratio, at most 2): a sharp preview on a dense screen; the server preview asks for the same pixels.
   */
  resize(box: { width: number; height: number }, aspect: number, pixelRatio = 1): void {
    const css = fitSize(box.width, box.height, aspect);
    const ratio = Math.min(2, Math.max(1, pixelRatio));
    const { width, height } = fitSize(Math.floor(css.width * ratio), Math.floor(css.height * ratio), aspect);
    this.width = width;
    this.height = height;
    this.cssWidth = width / ratio;
    this.cssHeight = height / ratio;
    for (const el of [this.canvas, this.serverImage]) this.fitCss(el);
  }

  private fitCss(el: HTMLElement): void {
    el.style.width = `${this.cssWidth}px`;
    el.style.height = `${this.cssHeight}px`;
  }

  /** Evaluates at t and draws in the page. Later calls supersede earlier ones still loading. */
  async drawLocal(input: PreviewInput): Promise<PreviewOutcome> {
    this.canvas.hidden = false;
    this.serverImage.hidden = true;
    if (!this.api) return { ok: false, message: this.bootError ?? 'no WebGL' };
    const seq = ++this.seq;
    const scene = input.program.sceneAt(input.t);
    const err = scene.diagnostics.find((d) => d.severity === 'error');
    if (err) {
      const where = `line ${err.line}, column ${err.column}, at t = ${input.t.toFixed(2)} s`;
      return { ok: false, message: `${err.code} ${err.message} (${where})` };
    }
    const assets = Object.fromEntries(Object.entries(input.assets).map(([p, k]) => [p, `/v1/assets/${k}`]));
    const key = JSON.stringify([this.width, this.height, input.program.runner, assets]);
    if (key !== this.loadedKey) {
      const r = await this.api.load({ width: this.width, height: this.height, runner: input.program.runner, assets });
      if (seq !== this.seq) return { ok: true };
      if (!r.ok) return { ok: false, message: describe(r.error) };
      this.loadedKey = key;
      // load() sets the canvas' CSS size to its pixel size; keep the fitted size
      this.fitCss(this.canvas);
    }
    return this.draw(scene.value, seq);
  }

  private async draw(value: Value, seq: number): Promise<PreviewOutcome> {
    const r = await this.api!.draw(value, JSON.stringify(value));
    if (seq !== this.seq) return { ok: true };
    return r.ok ? { ok: true } : { ok: false, message: describe(r.error) };
  }

  /** The service's frame at t, at the canvas size, cached per source, assets, size and time. */
  async drawServer(input: PreviewInput): Promise<PreviewOutcome> {
    const seq = ++this.serverSeq;
    ++this.seq; // a local draw still loading must not show over it
    // while playing, times on a 0.1 s grid: a looping scene then hits the cache on its second pass
    const at = input.playing ? Math.round(input.t * 10) / 10 : input.t;
    const params = { width: this.width, height: this.height, at };
    const key = JSON.stringify([input.source, input.assets, params, input.args ?? null]);
    let url = this.serverCache.get(key);
    if (!url) {
      const body = { source: input.source, params, assets: input.assets, ...(input.args ? { args: input.args } : {}) };
      const end = await runJob('frame', body, () => {});
      if (seq !== this.serverSeq) return { ok: true };
      if (end.status !== 'ready') return { ok: false, message: `server: ${end.message}` };
      url = end.url;
      if (this.serverCache.size > 200) this.serverCache.clear();
      this.serverCache.set(key, url);
    }
    if (seq !== this.serverSeq) return { ok: true };
    await new Promise<void>((resolve) => {
      this.serverImage.onload = () => resolve();
      this.serverImage.onerror = () => resolve();
      this.serverImage.src = url!;
    });
    this.serverImage.hidden = false;
    this.canvas.hidden = true;
    return { ok: true };
  }

  /** Forgets the page's loaded state so the next draw loads again (after new uploads). */
  invalidate(): void {
    this.loadedKey = '';
  }
}

function describe(e: DrawError): string {
  if (e.code === 'ASS001' && e.path?.startsWith('/img/')) {
    return `${e.code} ${e.message}: add an image named ${e.path.slice(5)} (Add image…, or drop it on the page)`;
  }
  return e.path ? `${e.code} ${e.message}` : `${e.code}: ${e.message}`;
}
