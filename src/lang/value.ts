// The scene value tree (stdlib.md §5): plain, JSON-serialisable, every time signal resolved.
// This is the viewer's only input. The zod schema runs in the browser too.

import { z } from 'zod';
import { UNIT_TAGS, type Unit } from './units.js';

// Units live in units.ts (the one table); re-exported here because the viewer reads them from this module.
export { UNIT_TAGS, type Unit } from './units.js';

export interface Field {
  name: string;
  value: Value;
}

export type ColorValue =
  | { kind: 'color'; form: 'hex'; digits: string }
  | { kind: 'color'; form: 'oklch'; l: Value; c: Value; h: Value }
  | { kind: 'color'; form: 'oklab'; l: Value; a: Value; b: Value }
  | { kind: 'color'; form: 'srgb'; r: Value; g: Value; b: Value };

export type Value =
  | { kind: 'nil' }
  | { kind: 'number'; value: number; unit: Unit | null }
  | { kind: 'string'; raw: string }
  | { kind: 'bool'; value: boolean }
  | ColorValue
  | { kind: 'array'; elems: Value[] }
  | { kind: 'record'; fields: Field[] }
  | { kind: 'constructed'; name: string; fields: Field[] }
  | { kind: 'lambda'; params: string[] };

export const unitSchema = z.enum(UNIT_TAGS);

export const valueSchema: z.ZodType<Value> = z.lazy(() =>
  z.union([
    z.object({ kind: z.literal('nil') }),
    z.object({ kind: z.literal('number'), value: z.number(), unit: unitSchema.nullable() }),
    z.object({ kind: z.literal('string'), raw: z.string() }),
    z.object({ kind: z.literal('bool'), value: z.boolean() }),
    z.object({ kind: z.literal('color'), form: z.literal('hex'), digits: z.string() }),
    z.object({ kind: z.literal('color'), form: z.literal('oklch'), l: valueSchema, c: valueSchema, h: valueSchema }),
    z.object({ kind: z.literal('color'), form: z.literal('oklab'), l: valueSchema, a: valueSchema, b: valueSchema }),
    z.object({ kind: z.literal('color'), form: z.literal('srgb'), r: valueSchema, g: valueSchema, b: valueSchema }),
    z.object({ kind: z.literal('array'), elems: z.array(valueSchema) }),
    z.object({ kind: z.literal('record'), fields: z.array(z.object({ name: z.string(), value: valueSchema })) }),
    z.object({
      kind: z.literal('constructed'),
      name: z.string(),
      fields: z.array(z.object({ name: z.string(), value: valueSchema })),
    }),
    z.object({ kind: z.literal('lambda'), params: z.array(z.string()) }),
  ]),
) as z.ZodType<Value>;

// ---- small helpers shared by the evaluator, the viewer and the service ----

export const NIL: Value = Object.freeze({ kind: 'nil' }) as Value;

export function num(value: number, unit: Unit | null = null): Value {
  return { kind: 'number', value, unit };
}

/** Named field lookup: the LAST field with that name (how consumers read named arguments). */
export function namedField(v: Value, name: string): Value | undefined {
  if (v.kind !== 'constructed' && v.kind !== 'record') return undefined;
  for (let i = v.fields.length - 1; i >= 0; i--) if (v.fields[i]!.name === name) return v.fields[i]!.value;
  return undefined;
}

/** The n-th positional field (name ""), counting from 0. */
export function positionalField(v: Value, n: number): Value | undefined {
  if (v.kind !== 'constructed') return undefined;
  let k = 0;
  for (const f of v.fields) {
    if (f.name === '') {
      if (k === n) return f.value;
      k++;
    }
  }
  return undefined;
}

/** A string value's text with one pair of `"` stripped (how image paths and glyph texts are read). */
export function stripQuotes(raw: string): string {
  let s = raw;
  if (s.startsWith('"')) s = s.slice(1);
  if (s.endsWith('"')) s = s.slice(0, -1);
  return s;
}
