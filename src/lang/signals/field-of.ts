// Field access on a time signal (stdlib.md §4.8). In the reference a signal is still a node when
// the source is evaluated, so `.name` on it is a deferred `field_of`: at each frame, the first
// field of that name if the signal's value is a record, else nil, and never an error. We resolve
// signals while evaluating, so we remember which values came from a signal (or were read from
// one) to give the same answers.

import { NIL, type Value } from '../value';

const fromSignal = new WeakSet<Value>();

/**
 * A copy of `v` marked as a signal's value. A copy, because the same object may be bound
 * elsewhere (`animate { 0s => r }` returns `r` itself), where `.name` must still be checked.
 */
export function markSignal(v: Value): Value {
  const c = { ...v } as Value;
  fromSignal.add(c);
  return c;
}

export function isSignalValue(v: Value): boolean {
  return fromSignal.has(v);
}

/** `.name` on a signal's value: the record's first field of that name, else nil. */
export function signalField(v: Value, name: string): Value {
  if (v.kind === 'record') for (const f of v.fields) if (f.name === name) return f.value;
  return NIL;
}
