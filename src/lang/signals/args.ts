// Reading a library call's arguments (its constructed node's fields) the way the sampler does.

import type { Field, Value } from '../value';

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
