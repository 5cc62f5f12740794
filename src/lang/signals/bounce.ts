// `bounce(height:, period:, floor:)` at time t (stdlib.md §4.7): a record of the ball's position
// and a sliding window of impact times (enough for `on_event`).

import { toSeconds } from '../units.js';
import type { Field, Value } from '../value.js';
import { lastNamedNumber } from './args.js';

const mod = (x: number, m: number): number => x - m * Math.floor(x / m);

/** `{position, impacts}` at t from the last named numeric `height`, `period`, `floor`; null when malformed (one missing, a period ≤ 0). */
export function bounceAt(fields: readonly Field[], t: number): Value | null {
  const H = lastNamedNumber(fields, 'height');
  const P = lastNamedNumber(fields, 'period');
  const F = lastNamedNumber(fields, 'floor');
  if (!H || !P || !F) return null;
  const p = toSeconds(P);
  if (!(p > 0)) return null;
  const tc = Math.max(t, 0);
  const phase = mod(tc, p) / p;
  const arc = 4 * phase * (1 - phase);
  const impacts: Value[] = [];
  const k0 = Math.floor(Math.max(0, tc - 2) / p);
  const k1 = Math.floor((tc + p) / p);
  // the cap only matters for absurdly short periods
  for (let k = k0; k <= k1 && impacts.length < 10000; k++) impacts.push({ kind: 'number', value: k * p, unit: 's' });
  return {
    kind: 'record',
    fields: [
      { name: 'position', value: { kind: 'number', value: F.value + H.value * arc, unit: F.unit ?? H.unit } },
      { name: 'impacts', value: { kind: 'array', elems: impacts } },
    ],
  };
}
