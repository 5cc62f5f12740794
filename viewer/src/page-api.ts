// The typed page API: the ONLY surface the renderer (src/render) and the editor call. Installed by main.ts as
// `window.cmViewer`. Documented in docs/viewer-api.md.
import { Viewer, SceneError, formatDiagnostic, type ProgramLike, type DiagnosticLike } from './viewer';
import { fetchFont } from './build/assets';
import { parseFont } from './meshes/index';
import { FONT_SERVED_NAME } from './font-file';

export interface LoadJob {
  source: string; width: number; height: number;
  /** the time (s) of the frame load() draws, default 0: a job that wants one frame at t passes at: t, so that its
   *  seek(t) finds that frame already drawn instead of drawing t = 0 first and then t */
  at?: number;
}
export type LoadResult =
  | { ok: true; duration: number; width: number; height: number; runner: string }
  | { ok: false; message: string; code: string | null };
export interface ViewerError { message: string; code: string | null }

export interface CmViewerApi {
  load(job: LoadJob): Promise<LoadResult>;
  seek(t: number): void;
  pixels(): Uint8Array;
  readonly ready: boolean;
  readonly error: ViewerError | null;
  readonly duration: number;
  readonly width: number;
  readonly height: number;
  /** image loads still in flight (lazily found on a later frame); 0 after a successful load */
  readonly pending: number;
  /** console-style warnings of the last frame (unknown names, skipped layers) */
  readonly warnings: readonly string[];
  readonly versions: { three: string };
  /** false when the last seek drew nothing because its sampled tree equalled the previous frame's: the pixels
   *  (and any PNG made of them) are exactly the previous frame's */
  readonly changed: boolean;
  /** GPU resources alive and the last seek's time (ms, CPU side: evaluate + build + submit) */
  readonly stats: { geometries: number; textures: number; programs: number; geometriesBuilt: number; lastSeekMs: number; drawn: number; skipped: number };
}

export interface CompiledLike {
  ok: boolean;
  diagnostics: readonly DiagnosticLike[];
  runner: string;
  program: (ProgramLike & { durationSeconds: number; runner?: string }) | null;
}
export type CompileFn = (source: string) => CompiledLike;

const MAX_SIDE = 8192;
/** Extra times sampled at load to find images that appear only later (they are preloaded too). */
const PRELOAD_SAMPLES = 16;

export function createPageApi(canvas: HTMLCanvasElement, compile: CompileFn, threeRevision: string): CmViewerApi {
  const viewer = new Viewer(canvas);
  let ready = false;
  let error: ViewerError | null = null;
  let duration = 0;
  let loadSeq = 0;

  const fail = (message: string, code: string | null): LoadResult => {
    error = { message, code };
    ready = false;
    return { ok: false, message, code };
  };

  async function load(job: LoadJob): Promise<LoadResult> {
    const seq = ++loadSeq;
    ready = false;
    error = null;
    const width = Math.floor(Number(job?.width)), height = Math.floor(Number(job?.height));
    if (!(width >= 1 && height >= 1 && width <= MAX_SIDE && height <= MAX_SIDE)) return fail(`bad canvas size ${job?.width}x${job?.height}`, null);
    if (typeof job?.source !== 'string') return fail('no source', 'NO_JOB');
    const at = job.at === undefined || job.at === null ? 0 : Number(job.at);
    if (!Number.isFinite(at)) return fail(`bad time ${job.at}`, null);
    viewer.reset(width, height);
    const fontP = fetchFont();
    const compiled = compile(job.source);
    if (!compiled.ok || !compiled.program) {
      const d = compiled.diagnostics.find((x) => x.severity === undefined || x.severity === 'error') ?? compiled.diagnostics[0];
      return fail(d ? formatDiagnostic(d) : 'compile failed', d ? d.code : null);
    }
    const program = compiled.program;
    viewer.program = program;
    viewer.runner = compiled.runner || program.runner || viewer.runner;
    duration = program.durationSeconds;
    // every image the scene references at t = 0 (and at a few later times) is loaded before we are ready
    let paths: Set<string>;
    try {
      paths = viewer.imagePathsAt(0);
      const d = Number.isFinite(duration) && duration > 0 ? duration : 0;
      for (let i = 1; i < PRELOAD_SAMPLES && d > 0; i++) viewer.imagePathsAt((d * i) / PRELOAD_SAMPLES, paths);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e), e instanceof SceneError ? e.code : null);
    }
    const [fontBuf, failed] = await Promise.all([fontP, viewer.images.loadAll(paths)]);
    if (seq !== loadSeq) return { ok: false, message: 'superseded by a newer load', code: null };
    if (failed.length) return fail(`ASS001 image "${failed[0]}" could not be loaded`, 'ASS001');
    if (!viewer.font && fontBuf) {
      try { viewer.font = parseFont(fontBuf); } catch { viewer.font = null; }
    }
    // text is part of every runner: a page without its font would silently drop glyphs
    if (!viewer.font) return fail(`viewer font ${FONT_SERVED_NAME} could not be loaded`, null);
    try {
      viewer.seek(at);
    } catch (e) {
      return fail(e instanceof Error ? e.message : String(e), e instanceof SceneError ? e.code : null);
    }
    ready = true;
    return { ok: true, duration, width, height, runner: viewer.runner };
  }

  return {
    load,
    seek(t: number): void {
      try {
        viewer.seek(Number(t));
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        error = { message, code: e instanceof SceneError ? e.code : null };
        throw e instanceof Error ? e : new Error(message);
      }
    },
    pixels: () => viewer.pixels(),
    get ready() { return ready; },
    get error() { return error; },
    get duration() { return duration; },
    get width() { return viewer.width; },
    get height() { return viewer.height; },
    get pending() { return viewer.images.pending; },
    get warnings() { return viewer.warnings; },
    versions: { three: threeRevision },
    get changed() { return viewer.lastSeekDrew; },
    get stats() {
      const info = viewer.renderer.info;
      return { geometries: info.memory.geometries, textures: info.memory.textures, programs: info.programs?.length ?? 0, geometriesBuilt: viewer.geometries.created, lastSeekMs: viewer.lastSeekMs, drawn: viewer.drawCount, skipped: viewer.skipCount };
    },
  };
}
