// The JSON Schema (2020-12) of a scene's `args`, built with zod's own z.toJSONSchema from the scene's declared
// parameters (scene-args.ts reads them): each type's JSON, unit values as patterns of their dimension's literals,
// colours as the literals the language writes, defaults and required, nothing else accepted. The editor, the CLI,
// MCP's describe_scene and POST /v1/check describe one signature alike.
import { z } from 'zod';
import type { Type } from './ast.js';
import { NUMBER_TYPES, type Dimension } from './units.js';
import {
  DIMENSION_UNITS,
  EXAMPLE,
  MAX_ARG_LIST,
  MAX_ARG_STRING,
  literalJson,
  refusedType,
  typeText,
  type Callable,
} from './scene-args.js';

function unitPattern(dim: Dimension): string {
  const units = DIMENSION_UNITS(dim); // letters and %: nothing to escape
  return `^-?[0-9][0-9_]*(\\.[0-9][0-9_]*)?(${units.join('|')})$`;
}
const NUM = '-?[0-9][0-9_]*(\\.[0-9][0-9_]*)?[a-z%]*';
const COLOR_PATTERN = `^(#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|(oklch|oklab|srgb)\\(\\s*${NUM}\\s*,\\s*${NUM}\\s*,\\s*${NUM}\\s*,?\\s*\\))$`;

/** The zod type of a declared type's JSON (null: cannot be passed). */
function zodOf(t: Type): z.ZodType | null {
  if (refusedType(t)) return null;
  if (t.t === 'record') {
    const shape: Record<string, z.ZodType> = {};
    for (const f of t.fields) shape[f.name] = zodOf(f.type)!;
    return z.strictObject(shape);
  }
  if (t.t !== 'simple') return null;
  const name = t.name;
  if (name === 'List') return z.array(zodOf(t.args[0]!)!).max(MAX_ARG_LIST);
  if (name === 'String') return z.string().max(MAX_ARG_STRING);
  if (name === 'Bool') return z.boolean();
  if (name === 'Color') return z.string().regex(new RegExp(COLOR_PATTERN));
  const dim = NUMBER_TYPES.get(name);
  if (dim === null) return name === 'Int' ? z.int() : z.number();
  if (dim === undefined) return null;
  return z
    .string()
    .regex(new RegExp(unitPattern(dim)))
    .meta({ description: `a ${dim} literal, e.g. "${EXAMPLE[dim]}"` });
}

/** The JSON Schema (2020-12) of a scene's `args`: types, unit patterns, defaults, required. */
export function argsSchema(decl: Callable, src: string): Record<string, unknown> {
  const shape: Record<string, z.ZodType> = {};
  for (const p of decl.params) {
    const zt = zodOf(p.type);
    if (!zt) continue; // a type that cannot be passed is not an argument (additionalProperties refuses it)
    const typed = zt.meta({ description: `${p.name}: ${typeText(p.type)}` });
    if (!p.default) shape[p.name] = typed;
    else {
      const d = literalJson(p.default, src);
      shape[p.name] = d === null ? typed.optional() : typed.default(d as never);
    }
  }
  const schema = z.strictObject(shape).meta({ title: `args of scene ${decl.name}` });
  return z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'input' }) as Record<string, unknown>;
}
