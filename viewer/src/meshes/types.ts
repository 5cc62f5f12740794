// Contract between the viewer's scene builder (viewer/src/build/*) and the geometry builders
// (viewer/src/meshes/*). Geometry builders are pure: no DOM, no fetch, so they run in Node tests too.
// All lengths passed in are design px; the builders return three.js objects in world units (px · p2w).
import type * as THREE from 'three';

export interface GlyphOptions {
  text: string; // already stripped of one pair of quotes; never empty ("?" substituted)
  sizePx: number | null; // text.glyph(size:) or null for auto-fit (viewer.md §5.6.1)
  depthPx: number; // extrude(depth:), default 16
  p2w: number; // world units per design px
  frameWidthPx: number; // design frame width (for the 82 % auto-fit rule)
  runner: string; // resolved runner version ("0.0.1" uses only the first character)
  /** a run's outlines at the reference's sampling whatever the size (src/lang/glyph-detail.ts); default true */
  fullDetail?: boolean;
}

export interface SvgOptions {
  depthPx: number;
  sizePx: number;
  roundPx: number;
  p2w: number;
  runner: string;
}

export interface VectorizeOptions {
  strokeWidth: number;
  threshold: number;
  simplify: number;
  bridge: number;
  stitch: number;
  maxDim: number;
}

export interface RasterImage {
  width: number;
  height: number;
  data: Uint8ClampedArray; // RGBA, top row first
  /** Optional extension: when set, `data` was already drawn at the working size (viewer.md §5.6.5 step 1,
   *  e.g. by a browser canvas) and these give the image's natural size (used for σ and the viewBox). */
  naturalWidth?: number;
  naturalHeight?: number;
}

export interface Blob3 {
  x: number;
  y: number;
  z: number;
  r: number;
} // design px

export interface MetaballsOptions {
  smoothingPx: number;
  p2w: number;
  aspect: number; // scene aspect (camera aspect)
  fill?: THREE.Color;
  emissive?: THREE.Color;
  roughness?: number; // from .material(...) when present
}

// ---- Extensions (compatible additions) -------------------------------------------------------------

/** What `.material(...)` on metaballs feeds the shader (viewer.md §5.6.6). Colours are the same linear
 *  THREE.Color the scene builder would give a MeshStandardMaterial (§1.4); the builder applies the
 *  second sRGB→linear decoding itself (QUIRK Q14). */
export interface MetaballsMaterialInput {
  fill?: THREE.Color;
  emissive?: THREE.Color;
  roughness?: number;
}

/** The object `metaballsObject` returns: a full-screen quad mesh at z = 5 with the raymarching shader. */
export interface MetaballsObject extends THREE.Mesh {
  /** Replace the blobs (px) without rebuilding; only the first 24 count. */
  update(blobs: Blob3[], smoothingPx?: number): void;
  /** Feed `.material(...)` values to the shader (absent fields restore the built-in look). */
  setMaterial(m: MetaballsMaterialInput): void;
}
