// Colour conversion shared by tests, the service and the viewer (viewer.md §1.4, stdlib.md §2.5).
// All functions are pure; no DOM or Node APIs.

import type { Value } from './value.js';

export interface Rgb {
  r: number;
  g: number;
  b: number;
}
export interface Rgba extends Rgb {
  a: number;
}

const clamp01 = (x: number): number => (x < 0 ? 0 : x > 1 ? 1 : Number.isNaN(x) ? 0 : x);

/** OKLab (L, a, b) → linear-light sRGB, each channel clipped to [0, 1]. */
export function oklabToLinearSrgb(L: number, a: number, b: number): Rgb {
  const l_ = L + 0.3963377774 * a + 0.2158037573 * b;
  const m_ = L - 0.1055613458 * a - 0.0638541728 * b;
  const s_ = L - 0.0894841775 * a - 1.291485548 * b;
  const l = l_ * l_ * l_;
  const m = m_ * m_ * m_;
  const s = s_ * s_ * s_;
  return {
    r: clamp01(4.0767416621 * l - 3.3077115913 * m + 0.2309699292 * s),
    g: clamp01(-1.2684380046 * l + 2.6097574011 * m - 0.3413193965 * s),
    b: clamp01(-0.0041960863 * l - 0.7034186147 * m + 1.707614701 * s),
  };
}

/** OKLCH (L 0..1, C, hue in degrees) → linear-light sRGB, clipped. */
export function oklchToLinearSrgb(L: number, C: number, hDeg: number): Rgb {
  const h = (hDeg * Math.PI) / 180;
  return oklabToLinearSrgb(L, C * Math.cos(h), C * Math.sin(h));
}

/** sRGB transfer function (linear 0..1 → encoded 0..1). */
export function linearToSrgb(x: number): number {
  const v = clamp01(x);
  return v <= 0.0031308 ? 12.92 * v : 1.055 * Math.pow(v, 1 / 2.4) - 0.055;
}

/** Inverse sRGB transfer function (encoded 0..1 → linear 0..1). */
export function srgbToLinear(x: number): number {
  const v = clamp01(x);
  return v <= 0.04045 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
}

/** Linear-light triple → 8-bit sRGB-encoded bytes. */
export function linearToSrgb8(c: Rgb): Rgb {
  return {
    r: Math.round(linearToSrgb(c.r) * 255),
    g: Math.round(linearToSrgb(c.g) * 255),
    b: Math.round(linearToSrgb(c.b) * 255),
  };
}

/** `#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa` (digits without `#`) → sRGB-encoded channels 0..1 + alpha. */
export function parseHex(digits: string): Rgba | null {
  if (!/^[0-9a-fA-F]+$/.test(digits)) return null;
  let d = digits;
  if (d.length === 3 || d.length === 4) d = [...d].map((c) => c + c).join('');
  if (d.length !== 6 && d.length !== 8) return null;
  const byte = (i: number) => parseInt(d.slice(i, i + 2), 16) / 255;
  return { r: byte(0), g: byte(2), b: byte(4), a: d.length === 8 ? byte(6) : 1 };
}

function numOf(v: Value): number {
  return v.kind === 'number' ? v.value : 0;
}

/**
 * Any colour value → LINEAR-light sRGB (0..1, what three.js stores) plus alpha.
 * Our policy (docs/compatibility.md): every form renders in its colour — hex with 3, 4, 6 or 8
 * digits, oklch, oklab, and srgb (channels 0..1 sRGB-encoded, clamped). Anything else → null
 * (the consumer's default, white).
 */
export function colorToLinear(v: Value): Rgba | null {
  if (v.kind !== 'color') return null;
  switch (v.form) {
    case 'hex': {
      const c = parseHex(v.digits);
      if (!c) return null;
      return { r: srgbToLinear(c.r), g: srgbToLinear(c.g), b: srgbToLinear(c.b), a: c.a };
    }
    case 'oklch':
      return { ...oklchToLinearSrgb(numOf(v.l), numOf(v.c), numOf(v.h)), a: 1 };
    case 'oklab':
      return { ...oklabToLinearSrgb(numOf(v.l), numOf(v.a), numOf(v.b)), a: 1 };
    case 'srgb':
      return { r: srgbToLinear(numOf(v.r)), g: srgbToLinear(numOf(v.g)), b: srgbToLinear(numOf(v.b)), a: 1 };
  }
}

/** Any colour value → 8-bit sRGB bytes as they appear in the output (null when not a colour). */
export function colorToSrgb8(v: Value): (Rgb & { a: number }) | null {
  const c = colorToLinear(v);
  if (!c) return null;
  return { ...linearToSrgb8(c), a: c.a };
}
