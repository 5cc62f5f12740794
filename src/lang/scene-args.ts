// Scene arguments (docs/language.md "Scene arguments"): a scene's signature as data, which scene a request's `args`
// render, and the binding of a JSON `args` object to that scene's parameters by their declared types. Values are
// data, never source text: a string argument becomes a string value holding exactly its characters, and a unit or
// colour value is read by the language's own lexer as ONE literal (a leading `-` allowed), never as an expression.
// The JSON Schema (2020-12) of a scene's args is scene-args-schema.ts's.

import type { Expr, Param, TopDecl, Type } from './ast.js';
import { levenshtein } from './checker.js';
import { oneColor, oneNumber } from './literal-text.js';
import { NUMBER_TYPES, UNIT_SUFFIXES, suffixDimension, unitTag, type Dimension } from './units.js';
import type { Value } from './value.js';

/** At most this many bytes of JSON (UTF-8) in one `args` object. */
export const MAX_ARGS_BYTES = 64 * 1024;
/** At most this many characters (UTF-16 code units, as JSON and JavaScript count them) in one string argument. */
export const MAX_ARG_STRING = 4096;
/** At most this many elements in one list argument. */
export const MAX_ARG_LIST = 1000;

export type Json = string | number | boolean | null | Json[] | { [k: string]: Json };

export interface SceneParam {
  name: string;
  /** the declared type as written (`String`, `List<Color>`, `{name: String, age: Number}`) */
  type: string;
  /** the default as JSON in the form `args` takes it; null when there is none or it is not a plain literal */
  default: Json;
  /** no default: a request must give it */
  required: boolean;
  /** why this parameter cannot be given as data (its type); absent when it can */
  refused?: string;
}

export interface SceneSignature {
  name: string;
  kind: 'scene' | 'component' | 'filter';
  params: SceneParam[];
}

/** One thing wrong with a request's `args`: where (`args.accent`, `args.names[2]`), what was expected, what came. */
export interface ArgProblem {
  path: string;
  expected: string;
  given: string;
  message: string;
}

export type Callable = Extract<TopDecl, { d: 'callable' }>;

// ---- the declared types ----

/** A type as the source writes it. */
export function typeText(t: Type): string {
  switch (t.t) {
    case 'simple':
      return t.args.length ? `${t.name}<${t.args.map(typeText).join(', ')}>` : t.name;
    case 'tuple':
      return `(${t.elems.map(typeText).join(', ')})`;
    case 'record':
      return `{${t.fields.map((f) => `${f.name}: ${typeText(f.type)}`).join(', ')}}`;
    case 'function':
      return `(${t.params.map(typeText).join(', ')}) -> ${typeText(t.ret)}`;
  }
}

const SIMPLE = new Set(['String', 'Bool', 'Color']);
const ACCEPTED =
  'String, Number, Int, Bool, Color, a unit type (Duration, Length, Angle, Percent, ...), List<T> or a record';

/** Why a declared type cannot be passed as JSON data, or null when it can. */
export function refusedType(t: Type): string | null {
  if (t.t === 'record') {
    for (const f of t.fields) {
      const r = refusedType(f.type);
      if (r) return r;
    }
    return null;
  }
  if (t.t === 'tuple') return `a tuple type (${typeText(t)}) cannot be passed as an argument: use a record or a List`;
  if (t.t === 'function') return `a function type (${typeText(t)}) cannot be passed as an argument: it is code`;
  if (t.name === 'List' && t.args.length === 1) return refusedType(t.args[0]!);
  if (t.args.length === 0 && (SIMPLE.has(t.name) || NUMBER_TYPES.has(t.name))) return null;
  return `type '${typeText(t)}' cannot be passed as an argument (arguments are ${ACCEPTED})`;
}

// ---- defaults as JSON ----

const ONE_PAIR = (raw: string) => raw.slice(1, -1);

/** A default written as a plain literal, as the JSON `args` would give it; null otherwise. */
export function literalJson(e: Expr, src: string): Json {
  switch (e.k) {
    case 'string':
      return e.triple ? null : ONE_PAIR(e.raw);
    case 'bool':
      return e.value;
    case 'number':
      return e.unit === '' ? e.value : `${e.digits}${e.unit}`;
    case 'hex':
      return `#${e.digits}`;
    case 'colorfn':
      return e.args.every((a) => literalJson(a, src) !== null) ? src.slice(e.start, e.end) : null;
    case 'unary': {
      if (e.op !== '-' || e.operand.k !== 'number') return null;
      const n = literalJson(e.operand, src);
      return typeof n === 'number' ? -n : `-${String(n)}`;
    }
    case 'paren':
      return literalJson(e.inner, src);
    case 'array': {
      const out = e.elems.map((x) => literalJson(x, src));
      return out.some((x) => x === null) ? null : out;
    }
    case 'record': {
      const out: { [k: string]: Json } = {};
      for (const f of e.fields) {
        const v = literalJson(f.value, src);
        if (v === null) return null;
        out[f.name] = v;
      }
      return out;
    }
    default:
      return null;
  }
}

function paramOf(p: Param, src: string): SceneParam {
  const refused = refusedType(p.type);
  return {
    name: p.name,
    type: typeText(p.type),
    default: p.default ? literalJson(p.default, src) : null,
    required: !p.default,
    ...(refused ? { refused } : {}),
  };
}

/** The signature of a callable declaration (its parameters in order). */
export function signatureOf(decl: Callable, src: string): SceneSignature {
  return { name: decl.name, kind: decl.kind, params: decl.params.map((p) => paramOf(p, src)) };
}

// ---- which scene renders ----

const allDefault = (d: Callable) => d.params.every((p) => p.default);

/**
 * The declaration a render uses. Without args (absent or `{}`), today's rule (docs/compatibility.md): the first
 * all-default `scene`, else the first all-default component or filter, else the first let/export. With args: the
 * first `scene` whose required parameters the args all give and which declares every name the args give; else the
 * first `scene` whose required parameters they give (its unknown names are then reported); else none.
 */
export function renderedDeclaration(
  decls: readonly TopDecl[],
  args?: Readonly<Record<string, unknown>>,
): TopDecl | null {
  const callables = decls.filter((d): d is Callable => d.d === 'callable');
  if (!args || Object.keys(args).length === 0) {
    return (
      callables.find((d) => d.kind === 'scene' && allDefault(d)) ??
      callables.find(allDefault) ??
      decls.find((d) => d.d === 'let' || d.d === 'export') ??
      null
    );
  }
  const names = Object.keys(args);
  const scenes = callables.filter((d) => d.kind === 'scene');
  const gives = (d: Callable) => d.params.every((p) => p.default || Object.hasOwn(args, p.name));
  return (
    scenes.find((d) => gives(d) && names.every((n) => d.params.some((p) => p.name === n))) ?? scenes.find(gives) ?? null
  );
}

// ---- binding ----

/** The closest of `candidates` to `name` (a small edit away), for "did you mean". */
export function closestName(name: string, candidates: readonly string[]): string | null {
  const max = name.length <= 4 ? 1 : 2;
  let best: string | null = null;
  let bestD = max + 1;
  for (const c of candidates) {
    const d = levenshtein(name.toLowerCase(), c.toLowerCase(), max);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best;
}

/** What a JSON value is, as a problem names it. */
function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (typeof v === 'string') {
    const s = v.length > 40 ? `${v.slice(0, 40)}...` : v;
    return `the string ${JSON.stringify(s)}`;
  }
  if (typeof v === 'number') return `the number ${v}`;
  if (typeof v === 'boolean') return `${v}`;
  if (typeof v === 'object') return 'an object';
  return typeof v;
}

export const DIMENSION_UNITS = (dim: Dimension) => UNIT_SUFFIXES.filter((u) => suffixDimension(u) === dim);

const COLOR_FORMS = '"#ff3399", "#ff339980" or "oklch(0.7, 0.1, 200)"';

/** The JSON `v` as a value of the declared type `t`, or the problems with it (pushed to `out`). */
function convert(t: Type, v: unknown, path: string, out: ArgProblem[]): Value | null {
  const bad = (expected: string, message?: string): null => {
    out.push({
      path,
      expected,
      given: describe(v),
      message: message ?? `${path} must be ${expected}; got ${describe(v)}`,
    });
    return null;
  };
  const refused = refusedType(t);
  if (refused) return bad(typeText(t), `${path}: ${refused}`);
  if (t.t === 'record') {
    const expected = `an object ${typeText(t)}`;
    if (!v || typeof v !== 'object' || Array.isArray(v)) return bad(expected);
    const o = v as Record<string, unknown>;
    const names = t.fields.map((f) => f.name);
    let ok = true;
    for (const k of Object.keys(o)) {
      if (names.includes(k)) continue;
      const s = closestName(k, names);
      out.push({
        path: `${path}.${k}`,
        expected: `one of the fields ${names.join(', ')}`,
        given: describe(o[k]),
        message: `${path}.${k} is not a field of ${typeText(t)}${s ? `; did you mean '${s}'?` : ''}`,
      });
      ok = false;
    }
    const fields: { name: string; value: Value }[] = [];
    for (const f of t.fields) {
      if (!Object.hasOwn(o, f.name)) {
        out.push({
          path: `${path}.${f.name}`,
          expected: typeText(f.type),
          given: 'nothing',
          message: `${path}.${f.name} is missing (${typeText(f.type)})`,
        });
        ok = false;
        continue;
      }
      const fv = convert(f.type, o[f.name], `${path}.${f.name}`, out);
      if (fv === null) ok = false;
      else fields.push({ name: f.name, value: fv });
    }
    return ok ? { kind: 'record', fields } : null;
  }
  if (t.t !== 'simple') return null; // refusedType() took tuples and functions
  const name = t.name;
  if (name === 'List') {
    const elem = t.args[0]!;
    const expected = `a list of ${typeText(elem)} (at most ${MAX_ARG_LIST} elements)`;
    if (!Array.isArray(v)) return bad(expected);
    if (v.length > MAX_ARG_LIST)
      return bad(expected, `${path} has ${v.length} elements; a list argument has at most ${MAX_ARG_LIST}`);
    const elems: Value[] = [];
    let ok = true;
    for (let i = 0; i < v.length; i++) {
      const e = convert(elem, v[i], `${path}[${i}]`, out);
      if (e === null) ok = false;
      else elems.push(e);
    }
    return ok ? { kind: 'array', elems } : null;
  }
  if (name === 'String') {
    const expected = `a string (String, at most ${MAX_ARG_STRING} characters)`;
    if (typeof v !== 'string') return bad(expected);
    if (v.length > MAX_ARG_STRING)
      return bad(expected, `${path} has ${v.length} characters; a string argument has at most ${MAX_ARG_STRING}`);
    // the value's raw text keeps one pair of quotes, as a literal's does; readers strip exactly that pair
    return { kind: 'string', raw: `"${v}"` };
  }
  if (name === 'Bool') return typeof v === 'boolean' ? { kind: 'bool', value: v } : bad('true or false (Bool)');
  if (name === 'Color') {
    const expected = `a colour literal (Color): ${COLOR_FORMS}`;
    if (typeof v !== 'string') return bad(expected);
    return oneColor(v) ?? bad(expected);
  }
  const dim = NUMBER_TYPES.get(name);
  if (dim === null) {
    const int = name === 'Int';
    const expected = int ? 'an integer (Int)' : `a number (${name})`;
    if (typeof v !== 'number' || !Number.isFinite(v) || (int && !Number.isInteger(v))) return bad(expected);
    return { kind: 'number', value: v, unit: null };
  }
  if (dim === undefined) return null;
  const units = DIMENSION_UNITS(dim);
  const expected = `a ${dim} literal (${name}) written as a string with one of the units ${units.join(', ')}, e.g. "${EXAMPLE[dim]}"`;
  if (typeof v !== 'string') return bad(expected);
  const n = oneNumber(v);
  if (!n || n.suffix === '' || suffixDimension(n.suffix) !== dim) return bad(expected);
  return { kind: 'number', value: n.value, unit: unitTag(n.suffix) };
}

export const EXAMPLE: Record<Dimension, string> = {
  Time: '2s',
  Frequency: '2hz',
  Angle: '30deg',
  Length: '300px',
  Percent: '50%',
  Tempo: '120bpm',
  Bars: '4bars',
  Beats: '2beats',
};

/** UTF-8 bytes of a string (TextEncoder exists in Node and in the browser). */
const utf8Bytes = (s: string) => new TextEncoder().encode(s).length;

/** The problems of `args` that no scene is needed to see: not an object, too large. */
export function argsShapeProblems(args: unknown): ArgProblem[] {
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return [
      {
        path: 'args',
        expected: 'an object of argument names to values',
        given: describe(args),
        message: `args must be an object of argument names to values; got ${describe(args)}`,
      },
    ];
  const bytes = utf8Bytes(JSON.stringify(args));
  if (bytes > MAX_ARGS_BYTES)
    return [
      {
        path: 'args',
        expected: `at most ${MAX_ARGS_BYTES} bytes of JSON`,
        given: `${bytes} bytes`,
        message: `args is ${bytes} bytes of JSON; at most ${MAX_ARGS_BYTES} are accepted`,
      },
    ];
  return [];
}

export interface BoundArgs {
  /** the declaration the render uses (null: none) */
  decl: TopDecl | null;
  /** its signature when it is a callable */
  signature: SceneSignature | null;
  /** the arguments as values, by parameter name (empty without args) */
  values: Map<string, Value>;
  problems: ArgProblem[];
}

/** Chooses the rendered declaration for `args` and binds them to its parameters by their declared types. */
export function bindArgs(decls: readonly TopDecl[], src: string, args: unknown): BoundArgs {
  const values = new Map<string, Value>();
  if (args === undefined || args === null) {
    const decl = renderedDeclaration(decls);
    return { decl, signature: decl?.d === 'callable' ? signatureOf(decl, src) : null, values, problems: [] };
  }
  const shape = argsShapeProblems(args);
  if (shape.length) return { decl: null, signature: null, values, problems: shape };
  const a = args as Record<string, unknown>;
  const decl = renderedDeclaration(decls, a);
  const names = Object.keys(a);
  if (names.length === 0 && decl) {
    return { decl, signature: decl?.d === 'callable' ? signatureOf(decl, src) : null, values, problems: [] };
  }
  if (!decl || decl.d !== 'callable') {
    const scenes = decls.filter((d): d is Callable => d.d === 'callable' && d.kind === 'scene');
    const problems: ArgProblem[] = scenes.length
      ? scenes.slice(0, 1).flatMap((s) =>
          s.params
            .filter((p) => !p.default && !Object.hasOwn(a, p.name))
            .map((p) => ({
              path: `args.${p.name}`,
              expected: typeText(p.type),
              given: 'nothing',
              message: `args.${p.name} is required by scene '${s.name}' (${typeText(p.type)}) and was not given`,
            })),
        )
      : [
          {
            path: 'args',
            expected: 'no arguments',
            given: `${names.length} argument${names.length === 1 ? '' : 's'}`,
            message: 'args were given, but the source declares no scene to take them',
          },
        ];
    // a first scene whose required parameters are all given but that still was not chosen cannot happen here
    return { decl: null, signature: null, values, problems };
  }
  const signature = signatureOf(decl, src);
  const problems: ArgProblem[] = [];
  const params = decl.params.map((p) => p.name);
  if (params.length === 0) {
    problems.push({
      path: 'args',
      expected: 'no arguments',
      given: names.map((n) => `args.${n}`).join(', '),
      message: `scene '${decl.name}' has no parameters, so it takes no args`,
    });
    return { decl, signature, values, problems };
  }
  for (const n of names) {
    if (params.includes(n)) continue;
    const s = closestName(n, params);
    problems.push({
      path: `args.${n}`,
      expected: `one of the parameters of scene '${decl.name}': ${params.join(', ')}`,
      given: describe(a[n]),
      message: `args.${n} is not a parameter of scene '${decl.name}'${s ? `; did you mean '${s}'?` : ''}`,
    });
  }
  for (const p of decl.params) {
    if (!Object.hasOwn(a, p.name)) continue;
    const v = convert(p.type, a[p.name], `args.${p.name}`, problems);
    if (v !== null) values.set(p.name, v);
  }
  return { decl, signature, values, problems };
}
