// `noise(seed, period)` (ours; the reference leaves it unimplemented, see docs/compatibility.md):
// deterministic smooth value noise in [-1, 1].

import { toSeconds } from '../units.js';
import type { Field, Value } from '../value.js';
import { firstNamed, positional } from './args.js';

/** Integer hash of (seed, lattice index) → [0, 1]; the same on every machine and in the browser. */
function hash(seed: number, k: number): number {
  let h = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(k | 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967295;
}

/** Smooth value noise: random lattice values at multiples of `period`, smoothstep between. */
export function noise(seed: number, period: number, t: number): number {
  const x = t / period;
  const k = Math.floor(x);
  const f = x - k;
  const s = f * f * (3 - 2 * f);
  const a = hash(seed, k) * 2 - 1;
  const b = hash(seed, k + 1) * 2 - 1;
  return a + (b - a) * s;
}

/** `noise(seed:, period:)` at t (also positional); null for a non-finite seed. */
export function noiseAt(fields: readonly Field[], t: number): Value | null {
  const S = firstNamed(fields, 'seed') ?? positional(fields, 0);
  const P = firstNamed(fields, 'period') ?? positional(fields, 1);
  const seed = S?.kind === 'number' ? S.value : 0;
  let p = P?.kind === 'number' ? toSeconds(P) : 1;
  if (!(p > 0) || !Number.isFinite(p)) p = 1;
  if (!Number.isFinite(seed)) return null;
  return { kind: 'number', value: noise(Math.trunc(seed), p, t), unit: null };
}
