// The design frame (viewer.md §3.2): the first element of the top-level compose fixes the px scale, the
// scene aspect and the background.
import type { ConstructedV, Val } from './value.js';
import { args, imagePath, isNode } from './read.js';
import { linearRGB } from './color.js';
import { designFrame as langDesignFrame } from '../../../src/lang/frame.js';

// The reference camera (viewer.md §0) lives with the other constants of the spec.
export { FOV_DEG as FOV, CAM_Z, VH } from '../meshes/constants.js';
import { VH } from '../meshes/constants.js';

export type Background =
  | { kind: 'color'; rgb: [number, number, number] } // linear
  | { kind: 'image'; path: string }
  | { kind: 'none' }; // nothing found: black on a fresh page

export interface DesignFrame {
  widthPx: number;
  heightPx: number;
  aspect: number;
  p2w: number;
  background: Background;
  /** the top-level layers to build (layer 0 removed when it became the background) */
  layers: Val[];
}

export function topLayers(v: Val): Val[] | null {
  if (!isNode(v, 'compose')) return null;
  const a = args(v);
  const l = a.named.get('layers') ?? a.pos[0];
  return l && l.kind === 'array' ? [...l.elems] : null;
}

export function designFrame(value: Val): DesignFrame {
  const def: DesignFrame = {
    widthPx: 1920,
    heightPx: 1080,
    aspect: 16 / 9,
    p2w: VH / 1080,
    background: { kind: 'none' },
    layers: [],
  };
  const layers = topLayers(value);
  if (!layers) return { ...def, layers: [value] }; // Q5: a bare rect / render3d is built as a layer
  const first = layers[0];
  if (isNode(first, 'rect')) {
    // width and height exactly as the service sees them (src/lang/frame.ts), so both agree on the aspect
    const dims = langDesignFrame(value);
    const H = dims.height > 0 ? dims.height : 1080;
    let aspect = dims.width / H;
    if (!(aspect > 0) || !Number.isFinite(aspect)) aspect = 16 / 9;
    const rgb = linearRGB(args(first as ConstructedV).named.get('fill')) ?? [1, 1, 1];
    return {
      widthPx: H * aspect,
      heightPx: H,
      aspect,
      p2w: VH / H,
      background: { kind: 'color', rgb },
      layers: layers.slice(1),
    };
  }
  if (isNode(first, 'image') || isNode(first, 'fit')) {
    const p = imagePath(first, false);
    if (p !== null) return { ...def, background: { kind: 'image', path: p }, layers: layers.slice(1) };
  }
  return { ...def, layers };
}
