// Partial redraw: which part of the canvas can differ from the frame already on it. A frame's top-level layers are
// compared with those of the frame the canvas shows (by their value's JSON); only the screen bounds of the layers
// that changed, where they were and where they are now, need drawing again. Everything else on the canvas is
// covered by the same objects in the same order under the same lights and camera, so it keeps its pixels: the
// frame is drawn whole with a scissor around the damage, which gives every pixel inside it exactly what a full
// draw gives (the scissor test only discards fragments), and the preserved drawing buffer keeps the rest.
import * as THREE from 'three';

/** A box in canvas pixels as WebGL counts them (rows from the bottom): the viewport, a scissor. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/**
 * A canvas rectangle in pixels, top row 0. Its sides are even (so it covers whole 2x2 chroma blocks of I420) except
 * where it ends at an odd canvas edge.
 */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** What a drawn frame leaves on the canvas, for the next frame's comparison. */
export interface Shown {
  /** everything besides the layers that reaches every pixel: size, fitted box, background, lights, camera */
  global: string;
  /** per top-level layer: its value's JSON and its screen bounds (null: not bounded, e.g. a shader quad) */
  layers: { key: string; bounds: Rect | null }[];
}

/**
 * Pixels added on every side of a projected box: multisampling and line rasterisation reach at most one pixel past
 * the exact projection, and the projection itself is computed in doubles here but in floats by the GPU.
 */
const PAD = 2;

const corner = new THREE.Vector4();

/**
 * The canvas pixels an object tree can touch: its world bounding box (each mesh's geometry box through its world
 * matrix) projected by the camera into the viewport box. Null when that bound cannot be trusted: a shader material
 * (its vertex shader may place vertices anywhere), an object drawn without frustum culling, or a corner at or behind
 * the camera plane.
 */
export function screenBounds(
  obj: THREE.Object3D,
  camera: THREE.Camera,
  box: Box,
  canvasWidth: number,
  canvasHeight: number,
): Rect | null {
  let trusted = true;
  const world = new THREE.Box3();
  obj.traverse((o) => {
    if (!trusted) return;
    const mesh = o as THREE.Mesh;
    if (!mesh.isMesh) {
      // groups and lights draw nothing themselves; lines, points and sprites are not bounded here
      if (!(o.type === 'Group' || o.type === 'Object3D' || (o as THREE.Light).isLight)) trusted = false;
      return;
    }
    const materials = Array.isArray(mesh.material) ? mesh.material : [mesh.material];
    if (!mesh.frustumCulled || materials.some((m) => (m as THREE.ShaderMaterial).isShaderMaterial)) {
      trusted = false;
      return;
    }
    // an instanced mesh (a glyph run) is bounded by all its instances, not by the one outline they share
    const inst = mesh as THREE.InstancedMesh;
    let b: THREE.Box3;
    if (inst.isInstancedMesh) {
      if (!inst.boundingBox) inst.computeBoundingBox();
      b = inst.boundingBox!;
    } else {
      if (!mesh.geometry.boundingBox) mesh.geometry.computeBoundingBox();
      b = mesh.geometry.boundingBox!;
    }
    if (b.isEmpty()) return;
    world.union(b.clone().applyMatrix4(mesh.matrixWorld));
  });
  if (!trusted) return null;
  if (world.isEmpty()) return { x: 0, y: 0, width: 0, height: 0 };
  const toClip = new THREE.Matrix4().multiplyMatrices(camera.projectionMatrix, camera.matrixWorldInverse);
  let x0 = Infinity,
    y0 = Infinity,
    x1 = -Infinity,
    y1 = -Infinity;
  for (let i = 0; i < 8; i++) {
    corner
      .set(i & 1 ? world.max.x : world.min.x, i & 2 ? world.max.y : world.min.y, i & 4 ? world.max.z : world.min.z, 1)
      .applyMatrix4(toClip);
    if (!(corner.w > 1e-6)) return null;
    const sx = box.x + ((corner.x / corner.w + 1) / 2) * box.w;
    const sy = box.y + ((corner.y / corner.w + 1) / 2) * box.h; // from the bottom, as WebGL counts
    x0 = Math.min(x0, sx);
    x1 = Math.max(x1, sx);
    y0 = Math.min(y0, sy);
    y1 = Math.max(y1, sy);
  }
  if (![x0, y0, x1, y1].every(Number.isFinite)) return null;
  // to the top-down canvas rows, padded, clamped, and widened to even sides
  const left = evenDown(clamp(Math.floor(x0) - PAD, canvasWidth));
  const right = evenUp(clamp(Math.ceil(x1) + PAD, canvasWidth), canvasWidth);
  const top = evenDown(clamp(canvasHeight - Math.ceil(y1) - PAD, canvasHeight));
  const bottom = evenUp(clamp(canvasHeight - Math.floor(y0) + PAD, canvasHeight), canvasHeight);
  if (right <= left || bottom <= top) return { x: 0, y: 0, width: 0, height: 0 };
  return { x: left, y: top, width: right - left, height: bottom - top };
}

const clamp = (v: number, max: number) => Math.min(max, Math.max(0, v));
const evenDown = (v: number) => v & ~1;
const evenUp = (v: number, max: number) => Math.min(max, (v + 1) & ~1);

function union(a: Rect, b: Rect): Rect {
  if (a.width === 0 || a.height === 0) return b;
  if (b.width === 0 || b.height === 0) return a;
  const x = Math.min(a.x, b.x),
    y = Math.min(a.y, b.y);
  return {
    x,
    y,
    width: Math.max(a.x + a.width, b.x + b.width) - x,
    height: Math.max(a.y + a.height, b.y + b.height) - y,
  };
}

/**
 * The part of the canvas that must be drawn again to go from the frame shown to the next one, or null for all of
 * it: nothing shown yet, a different global state or number of layers, a changed layer without trusted bounds, or
 * damage that covers the canvas anyway. Never an empty rectangle: a frame whose value differs in a way the layer
 * keys do not show is drawn whole.
 */
export function damage(shown: Shown | null, next: Shown, canvasWidth: number, canvasHeight: number): Rect | null {
  if (!shown || shown.global !== next.global || shown.layers.length !== next.layers.length) return null;
  let d: Rect = { x: 0, y: 0, width: 0, height: 0 };
  let changed = false;
  for (let i = 0; i < next.layers.length; i++) {
    const before = shown.layers[i],
      now = next.layers[i];
    if (before.key === now.key) continue;
    if (!before.bounds || !now.bounds) return null;
    changed = true;
    d = union(d, union(before.bounds, now.bounds));
  }
  if (!changed || d.width === 0 || d.height === 0) return null;
  if (d.width >= canvasWidth && d.height >= canvasHeight) return null;
  return d;
}
