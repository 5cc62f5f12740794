// The limits of the export library (POST /v1/mesh, POST /v1/vectorize and the CLI). They bound the work of
// one job on a small machine whatever its input; the HTTP routes check their own body limits on top (an SVG
// source of at most 64 KiB, 12 MiB of base64 image). Measured on the 2-core development machine.
import { LIMITS } from '../contract/limits.js';

export const EXPORT_LIMITS = {
  /** Vertices of the extruded solid as three.js builds it (non-indexed, before the GLB shares twins).
   *  A 28 KB SVG of 870 stroked circles reaches 1 M: about 2.5 s to extrude, 0.5 GB of memory, a 15 MB GLB
   *  (at most ≈ 24 MB with a bevel). Real icons and traced drawings stay far below (the plinken icon: 6 396;
   *  the hand-drawn gallery image as handdrawn.cm traces it, with round 10: 20 130), while a 64 KiB SVG could otherwise ask for
   *  millions, or 13 times as many with `round`. */
  maxVertices: 1_000_000,
  /** Decoded pixels of a vectorize input, checked on the PNG/JPEG header before decoding. 40 MP covers
   *  a full-size photo or scan from today's cameras (24–36 MP, an A4 page at 600 dpi is 35 MP) and costs
   *  160 MB as RGBA (≈ 400 MB while jpeg-js decodes); a few KiB of PNG could otherwise claim gigabytes. */
  maxImagePixels: 40_000_000,
  /** Ranges of the vectorize parameters. maxDim is the working size the tracer thins and walks (the viewer
   *  fixes it at 700); the worst image for it, all ink, traces in 1.2 s at 700, 6.5 s at 1400 and 22 s
   *  (0.45 GB) at 2048, but 250 s (1.6 GB) at 4096. Each bridge pass is one dilation of the working image. */
  vectorize: LIMITS.vectorize.ranges,
} as const;
