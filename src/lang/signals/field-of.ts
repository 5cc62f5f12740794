// Field access on a time signal (stdlib.md §4.8). In the reference a signal is still a node when
// the source is evaluated, so `.name` on it is a deferred `field_of`: at each frame, the first
// field of that name if the signal's value is a record, else nil, and never an error. We resolve
// signals while evaluating, so each evaluation remembers which values came from a signal (or were
// read from one) to give the same answers.

import { NIL, type Value } from '../value.js';

/**
 * The signal values of one evaluation (one frame). A short array while there are few, which is
 * the usual case and cheaper than a Set (made per frame) or a WeakSet (costly to collect); a Set
 * beyond, so a source with many signals stays linear.
 */
export class SignalValues {
  private few: Value[] | null = null;
  private many: Set<Value> | null = null;

  /**
   * Marks `v` as a signal's value. `v` must be an object the signal made: an object that may be
   * bound elsewhere (a keyframe value the animation holds) must be copied first, or `.name` on it
   * there would turn nil too.
   */
  mark(v: Value): Value {
    if (this.many !== null) this.many.add(v);
    else if (this.few === null) this.few = [v];
    else if (this.few.length < 32) this.few.push(v);
    else (this.many = new Set(this.few)).add(v);
    return v;
  }

  /**
   * Marks a value the signal made entirely (a `bounce` record and its fields, a number): its
   * fields are marked too, so that reading them needs no copy.
   */
  markMade(v: Value): Value {
    if (v.kind === 'record') for (const f of v.fields) this.mark(f.value);
    return this.mark(v);
  }

  has(v: Value): boolean {
    if (this.many !== null) return this.many.has(v);
    return this.few !== null && this.few.includes(v);
  }
}

/** `.name` on a signal's value: the record's first field of that name, else nil. */
export function signalField(v: Value, name: string): Value {
  if (v.kind === 'record') for (const f of v.fields) if (f.name === name) return f.value;
  return NIL;
}

/** A shallow copy with the same keys in the same order (the wire form is unchanged). */
export function shallowCopy(v: Value): Value {
  switch (v.kind) {
    case 'nil':
      return { kind: 'nil' };
    case 'number':
      return { kind: 'number', value: v.value, unit: v.unit };
    case 'string':
      return { kind: 'string', raw: v.raw };
    case 'bool':
      return { kind: 'bool', value: v.value };
    case 'array':
      return { kind: 'array', elems: v.elems };
    case 'record':
      return { kind: 'record', fields: v.fields };
    case 'constructed':
      return { kind: 'constructed', name: v.name, fields: v.fields };
    case 'lambda':
      return { kind: 'lambda', params: v.params };
    case 'color':
      return { ...v };
  }
}
