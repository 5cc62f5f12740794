// `on_event(events, decay:, peak:)` at time t (stdlib.md §4.9): a peak at each event time,
// decaying exponentially until the next.

import { toSeconds } from '../units';
import type { Field, Value } from '../value';
import { firstNamed } from './args';

/** The envelope at t; null when malformed (events not an array, decay or peak missing, decay ≤ 0). */
export function onEventAt(fields: readonly Field[], t: number): Value | null {
  const ev = firstNamed(fields, 'events') ?? fields.find((f) => f.name === '')?.value;
  const D = firstNamed(fields, 'decay');
  const Pk = firstNamed(fields, 'peak');
  if (ev?.kind !== 'array' || D?.kind !== 'number' || Pk?.kind !== 'number') return null;
  const d = toSeconds(D);
  if (!(d > 0)) return null;
  let last = -Infinity;
  for (const x of ev.elems) {
    if (x.kind !== 'number') continue;
    const s = toSeconds(x);
    if (s <= t && s > last) last = s;
  }
  if (last === -Infinity) return { kind: 'number', value: 0, unit: Pk.unit };
  return { kind: 'number', value: Pk.value * Math.exp(-(t - last) / d), unit: Pk.unit };
}
