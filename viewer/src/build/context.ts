// What one frame's build needs and what it produces besides the object tree, and the one way to start a frame's
// context (the viewer draws with it; the Node tests of the builder build with the same).
import type * as THREE from 'three';
import type { GeometryCache } from './cache.js';
import type { ImageStore } from './assets.js';
import type { DesignFrame } from './frame.js';
import { drawingCost } from '../../../src/lang/drawing-limits.js';
import { glyphsFitInFull } from '../../../src/lang/glyph-detail.js';

export interface BloomSettings {
  strength: number;
  radius: number;
  threshold: number;
}
export interface CameraSettings {
  distancePx: number | null;
  fovDeg: number | null;
}

export interface BuildContext {
  p2w: number;
  aspect: number;
  frameWidthPx: number;
  /** whether this frame's text is built at the reference's sampling (src/lang/glyph-detail.ts: it fits the budget) */
  glyphsFull: boolean;
  runner: string;
  font: unknown | null; // opentype.js Font once loaded
  geometries: GeometryCache;
  images: ImageStore;
  /** lights of every render3d (global) */
  lights: THREE.Light[];
  bloom: BloomSettings | null;
  camera: CameraSettings | null;
  /** every material created this frame, in creation order (disposed after the next frame is drawn) */
  materials: THREE.Material[];
  /** instanced meshes (glyph runs) made this frame: their instance buffers are released after the next frame */
  instances: THREE.InstancedMesh[];
  /** counts metaballs nodes in build order (their shader quads are reused across frames) */
  metaballIndex: number;
  track<M extends THREE.Material>(m: M): M;
  warn(msg: string): void;
}

/** What lives longer than a frame: the runner pin, the font and the caches. */
export interface BuildDeps {
  runner: string;
  font: unknown | null;
  geometries: GeometryCache;
  images: ImageStore;
}

/** A fresh context for one frame's build, and the warnings it collects. */
export function frameContext(frame: DesignFrame, deps: BuildDeps): { ctx: BuildContext; warnings: string[] } {
  const warnings: string[] = [];
  const ctx: BuildContext = {
    p2w: frame.p2w,
    aspect: frame.aspect,
    frameWidthPx: frame.widthPx,
    glyphsFull: glyphsFitInFull(frame.layers.reduce((n, layer) => n + drawingCost(layer).glyphVerticesFull, 0)),
    ...deps,
    lights: [],
    bloom: null,
    camera: null,
    materials: [],
    instances: [],
    metaballIndex: 0,
    track: (m) => {
      ctx.materials.push(m);
      return m;
    },
    warn: (msg) => {
      warnings.push(msg);
    },
  };
  return { ctx, warnings };
}
