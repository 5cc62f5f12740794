// The one error type of the export library. Every refusal (bad input, a limit hit) is an ExportError with a
// stable `code`, so a route can map it to a 4xx envelope and a CLI to a message, without parsing text.

import { CODE } from '../contract/error-codes.js';

/** The export library's codes (src/contract/error-codes.ts): each also the `code` of a job that fails with it. */
export const EXPORT_ERROR_CODES = [
  CODE.bad_params, // a parameter out of its range (depth ≤ 0, threshold > 1, …)
  CODE.bad_svg, // not an SVG document, malformed XML, or coordinates that are not finite numbers
  CODE.empty_svg, // a valid SVG with nothing to extrude (no shape, no stroke, or no area)
  CODE.too_many_vertices, // the solid would exceed EXPORT_LIMITS.maxVertices
  CODE.empty_mesh, // the GLB writer was given no triangle
  CODE.not_an_image, // the bytes are neither PNG nor JPEG (other images and garbage alike)
  CODE.bad_image, // a PNG/JPEG signature, but the data does not decode (truncated, corrupt)
  CODE.image_too_large, // more decoded pixels than EXPORT_LIMITS.maxImagePixels
  CODE.empty_drawing, // the image traced to no line at all (blank, or nothing darker than the threshold)
] as const;
export type ExportErrorCode = (typeof EXPORT_ERROR_CODES)[number];

export class ExportError extends Error {
  readonly code: ExportErrorCode;
  constructor(code: ExportErrorCode, message: string) {
    super(message);
    this.name = 'ExportError';
    this.code = code;
  }
}

export function isExportError(e: unknown): e is ExportError {
  return e instanceof ExportError;
}
