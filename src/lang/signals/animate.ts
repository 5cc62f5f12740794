// `animate { t => v, ... } with { easing:, repeat: }` at time t (stdlib.md §3.8, §4.4), plus our
// `repeat: N` (docs/compatibility.md).

import { convertUnit, toSeconds } from '../units.js';
import { NIL, type Field, type Value } from '../value.js';
import { firstNamed } from './args.js';
import { easingNamed, linear, type Easing } from './easings.js';

export interface Keyframe {
  at: Value;
  value: Value;
}

type Repeat = 'forever' | number | null;

const mod = (x: number, m: number): number => x - m * Math.floor(x / m);

/**
 * The animation's value at t, or null when it is malformed (a keyframe time that is not a
 * number); a malformed animation is passed through as `animateNode`.
 */
export function animateAt(keys: readonly Keyframe[], opts: readonly Field[] | null, t: number): Value | null {
  const times: { at: number; value: Value }[] = [];
  for (const k of keys) {
    if (k.at.kind !== 'number') return null;
    times.push({ at: toSeconds(k.at), value: k.value });
  }
  let repeat: Repeat = null;
  let ease = linear;
  if (opts) {
    const r = firstNamed(opts, 'repeat');
    if (r?.kind === 'constructed' && r.name === 'forever' && r.fields.length === 0) repeat = 'forever';
    else if (r?.kind === 'number' && Number.isFinite(r.value) && r.unit === null)
      repeat = Math.max(1, Math.floor(r.value));
    const ez = firstNamed(opts, 'easing');
    if (ez?.kind === 'constructed') ease = easingNamed(ez.name) ?? ease;
  }
  return interpolate(times, t, { repeat, ease });
}

/** The unresolved form of a malformed animation (stdlib.md §3.8). */
export function animateNode(keys: readonly Keyframe[], opts: Field[] | null): Value {
  return {
    kind: 'constructed',
    name: 'animate',
    fields: [
      {
        name: 'keyframes',
        value: {
          kind: 'array',
          elems: keys.map((k) => ({
            kind: 'record',
            fields: [
              { name: 'at', value: k.at },
              { name: 'value', value: k.value },
            ],
          })),
        },
      },
      { name: 'opts', value: opts ? { kind: 'record', fields: opts } : NIL },
    ],
  };
}

/** Keyframe interpolation (stdlib.md §4.4) plus `repeat: N`; keyframe times in seconds, in source order. */
export function interpolate(
  keys: { at: number; value: Value }[],
  t: number,
  opts: { repeat: Repeat; ease: Easing },
): Value {
  const n = keys.length;
  if (n === 1) return keys[0]!.value;
  const tmin = keys[0]!.at;
  const tmax = keys[n - 1]!.at;
  let u = t;
  const span = tmax - tmin;
  if (opts.repeat === 'forever' && span > 0) u = tmin + mod(t - tmin, span);
  else if (typeof opts.repeat === 'number' && span > 0 && t > tmin) {
    if (t < tmin + opts.repeat * span) u = tmin + mod(t - tmin, span);
    else u = tmax;
  }
  if (u <= tmin) return keys[0]!.value;
  if (u >= tmax) return keys[n - 1]!.value;
  let i = 0;
  while (i + 1 < n && u > keys[i + 1]!.at) i++;
  const a = keys[i]!;
  const b = keys[i + 1]!;
  if (b.at === a.at) return a.value;
  const f = opts.ease((u - a.at) / (b.at - a.at));
  return mix(a.value, b.value, f);
}

/** Only numbers interpolate (in the lower keyframe's unit); anything else holds, then jumps. */
function mix(a: Value, b: Value, f: number): Value {
  if (a.kind === 'number' && b.kind === 'number') {
    const bv = convertUnit(b.value, b.unit, a.unit) ?? b.value;
    return { kind: 'number', value: a.value + f * (bv - a.value), unit: a.unit };
  }
  return f < 1 ? a : b;
}
