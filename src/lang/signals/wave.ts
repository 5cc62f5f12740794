// `wave(amplitude:, period:)` at time t (stdlib.md §4.6): a sine from phase 0.

import type { EvalFailure } from '../eval-failure.js';
import { toSeconds } from '../units.js';
import { finiteNumber } from '../value-ops.js';
import type { Field, Value } from '../value.js';
import { lastNamedNumber } from './args.js';

/** The wave's value at t from the last named numeric `amplitude` and `period`; null when malformed (none, or a zero period). */
export function waveAt(fields: readonly Field[], t: number): Value | EvalFailure | null {
  const A = lastNamedNumber(fields, 'amplitude');
  const P = lastNamedNumber(fields, 'period');
  if (!A || !P) return null;
  const p = toSeconds(P);
  if (p === 0) return null;
  return finiteNumber(A.value * Math.sin((2 * Math.PI * t) / p), A.unit);
}
