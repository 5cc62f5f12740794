// `on_event(events, decay:, peak:)` at time t (stdlib.md §4.9): a peak at each event time,
// decaying exponentially until the next.

import { toSeconds } from '../units.js';
import type { Field, Value } from '../value.js';
import { lastNamed, lastNamedNumber, positional } from './args.js';

/** The envelope at t (`decay`, `peak`: the last named numbers); null when malformed (events not an array, decay or peak missing, decay ≤ 0). */
export function onEventAt(fields: readonly Field[], t: number): Value | null {
  // events: named wins over positional, and is read before its kind is checked (the reference
  // samples it first), so a named non-array leaves the call unresolved
  const ev = lastNamed(fields, 'events') ?? positional(fields, 0);
  const D = lastNamedNumber(fields, 'decay');
  const Pk = lastNamedNumber(fields, 'peak');
  if (ev?.kind !== 'array' || !D || !Pk) return null;
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
