// Colours → three.js (viewer.md §1.4) through the language's one conversion (src/lang/color.ts), with our
// deliberate difference: oklab, srgb and 8-digit hex render in their own colour (alpha ignored on opaque
// materials). Colours are three.js linear working-space values; the output is encoded as sRGB.
import * as THREE from 'three';
import type { Val } from './value.js';
import { colorToLinear } from '../../../src/lang/color.js';

/** Linear RGB triple of a colour value, or null when it is not a colour. */
export function linearRGB(v: Val | undefined): [number, number, number] | null {
  if (!v) return null;
  const c = colorToLinear(v);
  return c ? [c.r, c.g, c.b] : null;
}

/** A three.js Color (linear working space); white when missing or not a colour. */
export function toColor(v: Val | undefined, target = new THREE.Color()): THREE.Color {
  const rgb = linearRGB(v);
  if (!rgb) return target.setRGB(1, 1, 1, THREE.LinearSRGBColorSpace);
  return target.setRGB(rgb[0], rgb[1], rgb[2], THREE.LinearSRGBColorSpace);
}
