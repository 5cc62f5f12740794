// The design frame of viewer.md §3.2, shared by the viewer and the service (output size).

import { namedField, positionalField, stripQuotes, type Value } from './value.js';

export interface DesignFrame {
  width: number;
  height: number;
  background: { kind: 'color'; color: Value } | { kind: 'image'; path: string } | null;
}

/** The image path of `image(p)`, `image(p).fit(..)` or `.as_texture(..)`, or null. */
export function imagePathOf(v: Value): string | null {
  let x: Value | undefined = v;
  for (let i = 0; i < 64 && x && x.kind === 'constructed'; i++) {
    if (x.name === 'image') {
      const p = positionalField(x, 0);
      if (p && p.kind === 'string') {
        return stripQuotes(p.raw);
      }
      return null;
    }
    if (x.name === 'fit' || x.name === 'as_texture') x = positionalField(x, 0);
    else return null;
  }
  return null;
}

function numberOr(v: Value | undefined, d: number): number {
  return v && v.kind === 'number' && Number.isFinite(v.value) ? v.value : d;
}

/**
 * First layer of the top-level compose: `rect` → its W×H (defaults 1920/1080; H ≤ 0 → 1080 and
 * 16:9; W ≤ 0 → 16:9 at H) with its fill as background; `image`/`.fit` → 1920×1080 with the image as background;
 * anything else (or no top-level compose) → 1920×1080 and no background.
 */
export function designFrame(value: Value): DesignFrame {
  const none: DesignFrame = { width: 1920, height: 1080, background: null };
  if (value.kind !== 'constructed' || value.name !== 'compose') return none;
  const layers = namedField(value, 'layers');
  if (!layers || layers.kind !== 'array' || layers.elems.length === 0) return none;
  const first = layers.elems[0]!;
  if (first.kind !== 'constructed') return none;
  if (first.name === 'rect') {
    let w = numberOr(namedField(first, 'width'), 1920);
    let h = numberOr(namedField(first, 'height'), 1080);
    if (h <= 0) {
      h = 1080;
      w = 1920;
    }
    // a non-positive width cannot size an output: keep the height and use 16:9 (docs/compatibility.md)
    if (w <= 0) w = Math.round((h * 16) / 9);
    const fill = namedField(first, 'fill');
    return {
      width: w,
      height: h,
      background: { kind: 'color', color: fill ?? { kind: 'color', form: 'hex', digits: 'ffffff' } },
    };
  }
  const path = imagePathOf(first);
  if (path !== null) return { width: 1920, height: 1080, background: { kind: 'image', path } };
  return none;
}
