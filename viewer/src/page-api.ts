// The typed page API: the one surface the service's renderer and the editor call, installed by main.ts as
// `window.cmViewer`. It draws evaluated value trees (stdlib.md §5) and knows nothing of sources, jobs or HTTP:
// the caller compiles and evaluates (in Node for the service, in the page for the editor) and hands over values.
// Documented in docs/viewer-api.md. Failures come back as data ({code, message, path?}), never as text to parse.
import type { Value } from '../../src/lang/value.js';
import { availableVersions } from '../../src/lang/runners.js';
import { Viewer } from './viewer.js';
import { fetchFont } from './build/assets.js';
import { collectImagePaths } from './build/read.js';
import { parseFont } from './meshes/index.js';
import { FONT_SERVED_NAME } from './font-file.js';
import type { Rect } from './damage.js';

export type { Rect };

export interface LoadOptions {
  width: number;
  height: number;
  /** the runner version the values were evaluated for: it selects the drawing behaviour of viewer.md §9 */
  runner: string;
  /** in-source image path -> URL to fetch it from; a path not listed is fetched as itself on the page's origin */
  assets?: Record<string, string>;
  /** keep alpha: pixels() has alpha 0 where no background is drawn until a frame names one (default opaque) */
  transparent?: boolean;
}

/**
 * What went wrong, as a machine value. `ASS001` is the language's image diagnostic (an image the value uses could
 * not be loaded or decoded; `path` names it); the rest are the page's own. A draw that threw is `draw_too_large` when
 * the engine's own RangeError says the value was more than the page could build (an array, a buffer or a string past
 * what the heap gives, the call stack), else `draw_failed`: the error's type does not cross to the renderer, its
 * message alone does, so the page says which it was.
 */
export type DrawErrorCode =
  | 'ASS001'
  | 'bad_size'
  | 'bad_runner'
  | 'bad_value'
  | 'not_loaded'
  | 'font_unavailable'
  | 'context_lost'
  | 'draw_failed'
  | 'draw_too_large';

export interface DrawError {
  code: DrawErrorCode;
  message: string;
  /** the image path, for ASS001 */
  path?: string;
}

export type LoadResult = { ok: true; width: number; height: number; runner: string } | { ok: false; error: DrawError };
/** changed: false when the value's key equalled the frame on screen, so the pixels are exactly the previous ones */
export type DrawResult = { ok: true; changed: boolean } | { ok: false; error: DrawError };

export interface DrawStats {
  geometries: number;
  textures: number;
  programs: number;
  geometriesBuilt: number;
  /** CPU time of the last draw (build + submit), ms */
  lastDrawMs: number;
  drawn: number;
  skipped: number;
}

export interface CmViewerApi {
  /** Starts a job: sizes the canvas, selects the runner, fetches the font. Draws nothing. Never throws. */
  load(options: LoadOptions): Promise<LoadResult>;
  /**
   * Draws one evaluated value, first loading any image it uses. With a key (any string that is equal for equal
   * values, e.g. the value's JSON), an unchanged frame is not drawn again. Never throws.
   */
  draw(value: Value, key?: string): Promise<DrawResult>;
  /** RGBA of the canvas (or of a rectangle of it, e.g. `damage`), top row first. Throws RangeError on a bad rectangle. */
  pixels(rect?: Rect): Uint8Array;
  /**
   * The whole canvas as read back: RGBA, bottom row first, alpha as drawn (an opaque job's is not set to 255). For a
   * caller that packs the rows itself (the service's PNG): what pixels() is, without the page's flip and alpha pass.
   * The returned array is the page's own read: do not change it.
   */
  pixelsAsRead(): Uint8Array;
  /**
   * The canvas (or a rectangle of it) as I420 (planar Y, U, V; BT.709 limited range; chroma the mean of each 2x2
   * block), converted in the page by the code Node uses (src/contract/yuv.ts): byte for byte rgbaToI420(pixels()),
   * at 1.5 bytes a pixel. Even sides (and, for a rectangle, even offsets); else RangeError.
   */
  pixelsI420(rect?: Rect): Uint8Array;
  /**
   * The part of the canvas the last drawn frame changed (top row 0, even sides and offsets unless at an odd canvas
   * edge), or null when it drew the whole canvas. Everything outside it kept the previous frame's pixels, so a
   * caller holding that frame's picture needs only this rectangle.
   */
  readonly damage: Rect | null;
  readonly ready: boolean;
  readonly error: DrawError | null;
  readonly width: number;
  readonly height: number;
  readonly runner: string;
  /** warnings of the last draw (unknown names, skipped layers) */
  readonly warnings: readonly string[];
  readonly versions: { three: string };
  readonly stats: DrawStats;
}

const MAX_SIDE = 8192;
/** How long a draw waits for the images its value uses before failing with ASS001. */
export const IMAGE_WAIT_MS = 10_000;

function isValue(v: unknown): v is Value {
  return typeof v === 'object' && v !== null && typeof (v as { kind?: unknown }).kind === 'string';
}

/** A rectangle inside the canvas with whole-number sides (even ones, and even offsets, for I420). */
function checkedRect(r: Rect, width: number, height: number, even: boolean): Rect {
  const { x, y, width: w, height: h } = r ?? ({} as Rect);
  const ok =
    [x, y, w, h].every((n) => Number.isInteger(n)) &&
    x >= 0 &&
    y >= 0 &&
    w >= 1 &&
    h >= 1 &&
    x + w <= width &&
    y + h <= height &&
    (!even || [x, y, w, h].every((n) => n % 2 === 0));
  if (!ok) throw new RangeError(`bad rectangle ${JSON.stringify(r)} for a ${width}x${height} canvas`);
  return { x, y, width: w, height: h };
}

/** `options.offscreen`: draw into the viewer's own target, not the canvas (the service's page; viewer.ts). */
export function createPageApi(
  canvas: HTMLCanvasElement,
  threeRevision: string,
  options: { offscreen?: boolean } = {},
): CmViewerApi {
  const viewer = new Viewer(canvas, options);
  const runners = new Set(availableVersions());
  let ready = false;
  let error: DrawError | null = null;
  let loadSeq = 0;

  const whole = (): Rect => ({ x: 0, y: 0, width: viewer.width, height: viewer.height });
  const fail = (e: DrawError): { ok: false; error: DrawError } => {
    error = e;
    return { ok: false, error: e };
  };

  async function load(o: LoadOptions): Promise<LoadResult> {
    const seq = ++loadSeq;
    ready = false;
    error = null;
    const width = Math.floor(Number(o?.width));
    const height = Math.floor(Number(o?.height));
    if (!(width >= 1 && height >= 1 && width <= MAX_SIDE && height <= MAX_SIDE)) {
      return fail({ code: 'bad_size', message: `bad canvas size ${o?.width}x${o?.height}` });
    }
    if (typeof o?.runner !== 'string' || !runners.has(o.runner)) {
      return fail({ code: 'bad_runner', message: `unknown runner version ${JSON.stringify(o?.runner)}` });
    }
    viewer.reset(width, height, o.runner, o.transparent === true);
    for (const [path, url] of Object.entries(o.assets ?? {}))
      if (typeof url === 'string') viewer.images.urls.set(path, url);
    const fontBuf = await fetchFont();
    if (seq !== loadSeq) return fail({ code: 'not_loaded', message: 'superseded by a newer load' });
    if (!viewer.font && fontBuf) {
      try {
        viewer.font = parseFont(fontBuf);
      } catch {
        viewer.font = null;
      }
    }
    // text is part of every runner: a page without its font would silently drop glyphs
    if (!viewer.font)
      return fail({ code: 'font_unavailable', message: `viewer font ${FONT_SERVED_NAME} could not be loaded` });
    ready = true;
    return { ok: true, width, height, runner: o.runner };
  }

  /** Loads every image the value uses; the first that fails (or outlasts IMAGE_WAIT_MS) is the error. */
  async function loadImages(value: Value): Promise<DrawError | null> {
    const paths = [...collectImagePaths(value)];
    const waiting = paths.filter((p) => !viewer.images.settledPath(p));
    if (waiting.length) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<'timeout'>((r) => {
        timer = setTimeout(() => r('timeout'), IMAGE_WAIT_MS);
      });
      const done = await Promise.race([viewer.images.loadAll(waiting), timeout]);
      clearTimeout(timer);
      if (done === 'timeout') {
        const slow = waiting.find((p) => !viewer.images.settledPath(p)) ?? waiting[0];
        return { code: 'ASS001', message: `image "${slow}" did not load within ${IMAGE_WAIT_MS / 1000} s`, path: slow };
      }
    }
    for (const p of paths) {
      if (viewer.images.failed(p)) return { code: 'ASS001', message: `image "${p}" could not be loaded`, path: p };
    }
    return null;
  }

  async function draw(value: Value, key?: string): Promise<DrawResult> {
    if (!ready) return fail({ code: 'not_loaded', message: 'draw before a successful load' });
    if (!isValue(value)) return fail({ code: 'bad_value', message: 'not a value tree' });
    if (viewer.contextLost) return fail({ code: 'context_lost', message: 'WebGL context lost: reload the page' });
    try {
      const imageError = await loadImages(value);
      if (imageError) return fail(imageError);
      const changed = viewer.draw(value, typeof key === 'string' ? key : undefined);
      error = null;
      return { ok: true, changed };
    } catch (e) {
      return fail({
        code: e instanceof RangeError ? 'draw_too_large' : 'draw_failed',
        message: e instanceof Error ? e.message : String(e),
      });
    }
  }

  return {
    load,
    draw,
    pixels: (rect?: Rect) => viewer.pixels(rect && checkedRect(rect, viewer.width, viewer.height, false)),
    pixelsAsRead: () => viewer.pixelsAsRead(),
    pixelsI420: (rect?: Rect) => viewer.pixelsI420(checkedRect(rect ?? whole(), viewer.width, viewer.height, true)),
    get damage() {
      return viewer.lastDamage && { ...viewer.lastDamage };
    },
    get ready() {
      return ready;
    },
    get error() {
      return error;
    },
    get width() {
      return viewer.width;
    },
    get height() {
      return viewer.height;
    },
    get runner() {
      return viewer.runner;
    },
    get warnings() {
      return viewer.warnings;
    },
    versions: { three: threeRevision },
    get stats() {
      const info = viewer.renderer.info;
      return {
        geometries: info.memory.geometries,
        textures: info.memory.textures,
        programs: info.programs?.length ?? 0,
        geometriesBuilt: viewer.geometries.created,
        lastDrawMs: viewer.lastDrawMs,
        drawn: viewer.drawCount,
        skipped: viewer.skipCount,
      };
    },
  };
}
