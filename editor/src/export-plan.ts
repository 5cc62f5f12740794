// What an in-browser export makes: the format, the output size, the frame rate and the frames, by the service's own
// rules (src/contract/output-size.ts, src/contract/limits.ts; src/render/prepare.ts numbers frames the same way), so
// frame i of an export is the service's frame i: the scene at i / fps, round(duration x fps) frames.
import { designFrame, type Program } from '../../src/lang/index.js';
import { LIMITS } from '../../src/contract/limits.js';
import { limitsOf, outputSize, type OutputKind } from '../../src/contract/output-size.js';

export const EXPORT_FORMATS = ['mp4', 'webm', 'gif', 'png'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** What a caller asks for: the render panel's fields (absent ones take the service's defaults). */
export interface ExportRequest {
  format: ExportFormat;
  width?: number;
  height?: number;
  fps?: number;
  duration?: number;
  /** the time of a PNG, seconds */
  at?: number;
}

export interface ExportPlan {
  format: ExportFormat;
  width: number;
  height: number;
  fps: number;
  /** the clip's length in seconds (a PNG: 0) */
  duration: number;
  /** frame i is the scene at i / fps; a PNG has one frame, at `at` */
  frames: number;
  at: number;
}

/** A request the export refuses, or a failure along the way, in words for the page. */
export class BrowserExportError extends Error {
  override name = 'BrowserExportError';
}

const KIND: Record<ExportFormat, OutputKind> = { mp4: 'video', webm: 'video', gif: 'gif', png: 'frame' };

function within(name: string, v: number | undefined, r: { min: number; max: number }, integer: boolean): void {
  if (v === undefined) return;
  if (!Number.isFinite(v) || v < r.min || v > r.max || (integer && !Number.isInteger(v)))
    throw new BrowserExportError(`${name} ${v} is outside ${r.min}..${r.max}${integer ? ' (whole numbers)' : ''}`);
}

/** The plan of an export of `program`, or an BrowserExportError naming the field out of its range. */
export function planExport(program: Program, req: ExportRequest): ExportPlan {
  if (!EXPORT_FORMATS.includes(req.format))
    throw new BrowserExportError(`format ${JSON.stringify(req.format)} is not one of ${EXPORT_FORMATS.join(', ')}`);
  const kind = KIND[req.format];
  const L = limitsOf(kind);
  within('width', req.width, L.width, true);
  within('height', req.height, L.height, true);
  // the design frame (and so the output size) is the scene's at t = 0, as the service takes it
  const size = outputSize(designFrame(program.sceneAt(0).value), req, kind);
  if (kind === 'frame') {
    const at = req.at ?? LIMITS.at.default;
    if (!(Number.isFinite(at) && at >= LIMITS.at.min))
      throw new BrowserExportError(`at ${at} must be a time of at least ${LIMITS.at.min} s`);
    return { format: req.format, ...size, fps: 1, duration: 0, frames: 1, at };
  }
  within('fps', req.fps, L.fps, true);
  within('duration', req.duration, L.duration, false);
  const fps = req.fps ?? L.fps.default;
  const duration = req.duration ?? program.durationSeconds;
  if (!(Number.isFinite(duration) && duration <= L.duration.max))
    throw new BrowserExportError(
      `the scene's duration (${duration} s) is over the ${L.duration.max} s limit of a ${kind === 'gif' ? 'GIF' : 'video'}; set a duration`,
    );
  return { format: req.format, ...size, fps, duration, frames: Math.max(1, Math.round(duration * fps)), at: 0 };
}
