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
 * characters of the rendered value's JSON (EVL013), shared subtrees and strings counted per use: the text every frame
 * crosses to the renderer and the drawing page as. Nodes do not bound it: one 50,000-character string shared through
 * 12 levels of doubling arrays is 8,191 nodes and 205 MB of JSON (it took the service to gigabytes). 100,000 nodes of
 * ordinary values are under 10 MB; the largest example is under 100 KB.
 */
export const MAX_VALUE_BYTES = 16 * 1024 * 1024;

/** What a value's measure stops at: nodes and depth (EVL008) and JSON characters (EVL013). */
export interface ValueBounds {
  nodes: number;
  depth: number;
  bytes: number;
}

// The JSON text of each kind of node around its variable parts (the key order the evaluator writes them in):
// `{"kind":"number","value":` + number + `,"unit":` + unit + `}`, and so on.
const NIL_JSON = '{"kind":"nil"}'.length;
const NUMBER_JSON = '{"kind":"number","value":,"unit":}'.length;
const STRING_JSON = '{"kind":"string","raw":}'.length;
const BOOL_JSON = '{"kind":"bool","value":}'.length;
const HEX_JSON = '{"kind":"color","form":"hex","digits":}'.length;
/** oklch, oklab, srgb: the form's name and three one-letter keys */
const COLOR3_JSON = '{"kind":"color","form":"","l":,"c":,"h":}'.length;
const ARRAY_JSON = '{"kind":"array","elems":[]}'.length;
const RECORD_JSON = '{"kind":"record","fields":[]}'.length;
const CONSTRUCTED_JSON = '{"kind":"constructed","name":,"fields":[]}'.length;
const FIELD_JSON = '{"name":,"value":}'.length;
const LAMBDA_JSON = '{"kind":"lambda","params":[]}'.length;

/** Characters JSON.stringify needs for a string: quotes, and the escapes of `"`, `\`, controls and lone surrogates. */
// eslint-disable-next-line no-control-regex
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
export function jsonStringLength(s: string): number {
  if (!NEEDS_ESCAPE.test(s)) return s.length + 2;
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) n += 2;
    else if (c < 0x20) n += 6;
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 2; // a surrogate pair is written as it is
        i++;
      } else n += 6;
    } else if (c >= 0xdc00 && c <= 0xdfff) n += 6;
    else n++;
  }
  return n;
}

/** JSON.stringify's length of a number: its shortest round-trip text, `null` for a non-finite one (EVL005 first). */
const numberLength = (v: number): number => (Number.isFinite(v) ? String(v).length : 4);

/**
 * Size, depth and JSON length of a value tree (shared subtrees counted per occurrence); stops early once any limit
 * is exceeded, so a value far over a limit costs no more to measure than one at it. The JSON length is counted as the
 * tree is walked (JSON.stringify's length for the value, in UTF-16 code units), never by serialising it: what the
 * limit prevents is the serialising.
 */
export function measureValue(v: Value, limits: ValueBounds): ValueBounds {
  let nodes = 0;
  let depth = 0;
  let bytes = 0;
  // two parallel stacks rather than one of [value, depth] pairs: no allocation per node (this runs every frame)
  const values: Value[] = [v];
  const depths: number[] = [1];
  while (values.length) {
    const x = values.pop()!;
    const d = depths.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (nodes > limits.nodes || depth > limits.depth || bytes > limits.bytes) break;
    const c = d + 1;
    switch (x.kind) {
      case 'nil':
        bytes += NIL_JSON;
        break;
      case 'number':
        bytes += NUMBER_JSON + numberLength(x.value) + (x.unit === null ? 4 : x.unit.length + 2);
        break;
      case 'string':
        bytes += STRING_JSON + jsonStringLength(x.raw);
        break;
      case 'bool':
        bytes += BOOL_JSON + (x.value ? 4 : 5);
        break;
      case 'lambda':
        bytes += LAMBDA_JSON + Math.max(0, x.params.length - 1);
        for (const p of x.params) bytes += jsonStringLength(p);
        break;
      case 'array':
        bytes += ARRAY_JSON + Math.max(0, x.elems.length - 1);
        for (const y of x.elems) {
          values.push(y);
          depths.push(c);
        }
        break;
      case 'record':
      case 'constructed':
        bytes +=
          (x.kind === 'record' ? RECORD_JSON : CONSTRUCTED_JSON + jsonStringLength(x.name)) +
          Math.max(0, x.fields.length - 1);
        for (const f of x.fields) {
          bytes += FIELD_JSON + jsonStringLength(f.name);
          values.push(f.value);
          depths.push(c);
        }
        break;
      case 'color':
        if (x.form === 'hex') {
          bytes += HEX_JSON + jsonStringLength(x.digits);
          break;
        }
        bytes += COLOR3_JSON + x.form.length;
        if (x.form === 'oklch') values.push(x.l, x.c, x.h);
        else if (x.form === 'oklab') values.push(x.l, x.a, x.b);
        else values.push(x.r, x.g, x.b);
        depths.push(c, c, c);
        break;
    }
  }
  return { nodes, depth, bytes };
}
