// Reading a library call's arguments (its constructed node's fields) the way the sampler does.

import type { Field, Value } from '../value.js';

/** The first field with this name. */
export function firstNamed(fields: readonly Field[], name: string): Value | undefined {
  for (const f of fields) if (f.name === name) return f.value;
  return undefined;
}

/** The n-th positional field (name ""), counting from 0. */
export function positional(fields: readonly Field[], n: number): Value | undefined {
  let k = 0;
  for (const f of fields)
    if (f.name === '') {
      if (k === n) return f.value;
      k++;
    }
  return undefined;
}

/** The last field with this name (stdlib.md §6.0: a repeated named argument's last value counts). */
export function lastNamed(fields: readonly Field[], name: string): Value | undefined {
  for (let i = fields.length - 1; i >= 0; i--) if (fields[i]!.name === name) return fields[i]!.value;
  return undefined;
}

/** The last field with this name whose value is a number: the sampler skips the others. */
export function lastNamedNumber(
  fields: readonly Field[],
  name: string,
): Extract<Value, { kind: 'number' }> | undefined {
  for (let i = fields.length - 1; i >= 0; i--) {
    const f = fields[i]!;
    if (f.name === name && f.value.kind === 'number') return f.value;
  }
  return undefined;
}
