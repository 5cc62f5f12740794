// The output size rule of service.md "Rendering rules" and the limits of a job's params by kind: owned here so the
// renderer (src/render/prepare.ts) and the editor's in-browser export (editor/src/export) size a clip alike.
import { LIMITS } from './limits.js';

export interface Size {
  width: number;
  height: number;
}

/** The kinds of output a job makes (src/render/renderer-port.ts's RenderKind). */
export type OutputKind = 'frame' | 'video' | 'gif' | 'mesh' | 'vectorize';

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The limits of a job's params by kind: a GIF has its own, tighter ones (src/contract/limits.ts). */
export function limitsOf(kind: OutputKind) {
  if (kind === 'gif') return LIMITS.gif;
  return { fps: LIMITS.fps, duration: LIMITS.duration, width: LIMITS.width, height: LIMITS.height };
}

/**
 * Output size. Both given: exactly that (the viewer fits the design frame inside, centred). Neither: the design
 * frame's own size (scaled down to fit the limits if it is larger), or for a GIF 480 wide with the height by the
 * design frame's aspect. One: the other follows the design frame's aspect, clamped to its limits. Videos round
 * both up to even numbers (4:2:0 chroma); a GIF has no such need. `kind` may be the old boolean "video".
 */
export function outputSize(design: Size, req: { width?: number; height?: number }, kind: OutputKind | boolean): Size {
  const k: OutputKind = kind === true ? 'video' : kind === false ? 'frame' : kind;
  const W = limitsOf(k).width;
  const H = limitsOf(k).height;
  const dw = Number.isFinite(design.width) && design.width > 0 ? design.width : LIMITS.defaultFrame.width;
  const dh = Number.isFinite(design.height) && design.height > 0 ? design.height : LIMITS.defaultFrame.height;
  const aspect = dw / dh;
  // a GIF without a size is as wide as the GIF default
  const reqWidth = req.width ?? (k === 'gif' && req.height === undefined ? LIMITS.gif.width.default : undefined);
  let w: number;
  let h: number;
  if (reqWidth !== undefined && req.height !== undefined) {
    w = reqWidth;
    h = req.height;
  } else if (reqWidth !== undefined) {
    w = reqWidth;
    h = clamp(Math.round(w / aspect), H.min, H.max);
  } else if (req.height !== undefined) {
    h = req.height;
    w = clamp(Math.round(h * aspect), W.min, W.max);
  } else {
    const s = Math.min(1, W.max / dw, H.max / dh);
    w = clamp(Math.round(dw * s), W.min, W.max);
    h = clamp(Math.round(dh * s), H.min, H.max);
  }
  if (k === 'video') {
    w += w & 1;
    h += h & 1;
  }
  return { width: w, height: h };
}
