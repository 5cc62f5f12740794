// Every image(...) path a value tree references (for the service's asset checks).

import { positionalField, stripQuotes, type Value } from './value.js';

/** Paths of every `image(...)` node (one pair of quotes stripped), deduplicated, in tree order. */
export function imagePaths(value: Value): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack: Value[] = [value];
  let budget = 1_000_000;
  while (stack.length && budget-- > 0) {
    const v = stack.pop()!;
    switch (v.kind) {
      case 'constructed': {
        if (v.name === 'image') {
          const p = positionalField(v, 0);
          if (p && p.kind === 'string') {
            const s = stripQuotes(p.raw);
            if (!seen.has(s)) {
              seen.add(s);
              out.push(s);
            }
          }
        }
        for (let i = v.fields.length - 1; i >= 0; i--) stack.push(v.fields[i]!.value);
        break;
      }
      case 'record':
        for (let i = v.fields.length - 1; i >= 0; i--) stack.push(v.fields[i]!.value);
        break;
      case 'array':
        for (let i = v.elems.length - 1; i >= 0; i--) stack.push(v.elems[i]!);
        break;
    }
  }
  return out;
}
