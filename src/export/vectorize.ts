// Raster line drawing → centreline SVG (service.md "POST /v1/vectorize"): the viewer's own tracer
// (viewer.md §5.6.5 steps 1–7 and 9, as vectorize() runs it: no endpoint snapping), fed with pixels decoded
// in Node. The SVG is one <path> of polylines with a uniform stroke width, which svgToGlb accepts.
import { trace, VECTORIZE_DEFAULTS } from '../../viewer/src/meshes/vectorize.js';
import type { VectorizeOptions } from '../../viewer/src/meshes/types.js';
import { ExportError } from './errors.js';
import { EXPORT_LIMITS } from './limits.js';
import { decodeRaster } from './raster.js';
import { CODE } from '../contract/error-codes.js';

export type VectorizeParams = Partial<VectorizeOptions>;

export interface VectorizeLimits {
  /** Most pixels the decoded image may have (default EXPORT_LIMITS.maxImagePixels). */
  maxImagePixels?: number;
}

function range(name: string, v: number, lo: number, hi: number): number {
  if (!(Number.isFinite(v) && v >= lo && v <= hi))
    throw new ExportError(CODE.bad_params, `${name} must be a number in ${lo}..${hi} (got ${v})`);
  return v;
}

/** The tracer's options, defaults filled in and each checked against its range. */
export function vectorizeOptions(p: VectorizeParams = {}): VectorizeOptions {
  const d = VECTORIZE_DEFAULTS,
    r = EXPORT_LIMITS.vectorize;
  const strokeWidth = range('strokeWidth', p.strokeWidth ?? d.strokeWidth, 0, r.strokeWidthMax);
  if (strokeWidth === 0) throw new ExportError(CODE.bad_params, 'strokeWidth must be above 0');
  return {
    strokeWidth,
    threshold: range('threshold', p.threshold ?? d.threshold, 0, 1),
    simplify: range('simplify', p.simplify ?? d.simplify, 0, r.simplifyMax),
    bridge: range('bridge', p.bridge ?? d.bridge, 0, r.bridgeMax),
    stitch: range('stitch', p.stitch ?? d.stitch, 0, r.stitchMax),
    maxDim: range('maxDim', p.maxDim ?? d.maxDim, 1, r.maxDimMax),
  };
}

/** PNG or JPEG bytes → centreline SVG. Refusals are ExportErrors: not_an_image, bad_image, image_too_large,
 *  bad_params, and empty_drawing when nothing in the image is darker than the threshold. */
export function vectorizeImage(bytes: Buffer, params: VectorizeParams = {}, limits: VectorizeLimits = {}): string {
  const opts = vectorizeOptions(params);
  const img = decodeRaster(bytes, limits.maxImagePixels ?? EXPORT_LIMITS.maxImagePixels);
  const { svg, polylines } = trace(img, opts); // what traceToSvg returns, with the polylines to count
  if (polylines.length === 0) {
    throw new ExportError(
      CODE.empty_drawing,
      `the image traced to no line: no dark strokes below the threshold ${opts.threshold} (dark ink on light paper is expected)`,
    );
  }
  return svg;
}
