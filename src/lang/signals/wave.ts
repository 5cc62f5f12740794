// `wave(amplitude:, period:)` at time t (stdlib.md §4.6): a sine from phase 0.

import type { EvalFailure } from '../eval-failure';
import { toSeconds } from '../units';
import { finiteNumber } from '../value-ops';
import type { Field, Value } from '../value';
import { firstNamed } from './args';

/** The wave's value at t; null when malformed (positional arguments, a missing or zero period). */
export function waveAt(fields: readonly Field[], t: number): Value | EvalFailure | null {
  const A = firstNamed(fields, 'amplitude');
  const P = firstNamed(fields, 'period');
  if (A?.kind !== 'number' || P?.kind !== 'number') return null;
  const p = toSeconds(P);
  if (p === 0) return null;
  return finiteNumber(A.value * Math.sin((2 * Math.PI * t) / p), A.unit);
}
