// How much work, nesting and output one frame may take (docs/compatibility.md, "Runaway sources").
// The reference has no limits; these keep a hostile source from hanging or exhausting the service.

import type { Value } from './value.js';

/** evaluation steps per frame (EVL006); the largest example needs under 500 */
export const STEP_BUDGET = 200_000;
/** nested evaluations (EVL007) */
export const MAX_EVAL_DEPTH = 1200;
/** nested lambda calls (EVL007) */
export const MAX_CALL_DEPTH = 150;
/** nodes of the rendered value, shared subtrees counted per use (EVL008) */
export const MAX_VALUE_NODES = 100_000;
/** depth of the rendered value (EVL008) */
export const MAX_VALUE_DEPTH = 200;

/**
 * Size and depth of a value tree (shared subtrees counted per occurrence); stops early once
 * either limit is exceeded. Used to keep the rendered value small and shallow enough for JSON,
 * zod and the viewer.
 */
export function measureValue(v: Value, nodeLimit: number, depthLimit: number): { nodes: number; depth: number } {
  let nodes = 0;
  let depth = 0;
  // two parallel stacks rather than one of [value, depth] pairs: no allocation per node (this runs every frame)
  const values: Value[] = [v];
  const depths: number[] = [1];
  while (values.length) {
    const x = values.pop()!;
    const d = depths.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (nodes > nodeLimit || depth > depthLimit) break;
    const c = d + 1;
    switch (x.kind) {
      case 'array':
        for (const y of x.elems) {
          values.push(y);
          depths.push(c);
        }
        break;
      case 'record':
      case 'constructed':
        for (const f of x.fields) {
          values.push(f.value);
          depths.push(c);
        }
        break;
      case 'color':
        if (x.form === 'oklch') values.push(x.l, x.c, x.h);
        else if (x.form === 'oklab') values.push(x.l, x.a, x.b);
        else if (x.form === 'srgb') values.push(x.r, x.g, x.b);
        else break;
        depths.push(c, c, c);
        break;
    }
  }
  return { nodes, depth };
}
