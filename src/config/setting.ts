// How one setting is declared, read and documented. A setting is a zod schema from its raw environment value
// (undefined when the variable is unset or empty) to its typed value, registered with its variable's name, its
// default as an operator would write it, what it accepts and its doc; a process's configuration is a z.object of
// settings (settings.ts). Reading, the startup error and the docs table all come from those entries, so a setting
// is written once.
import { resolve } from 'node:path';
import { z } from 'zod';

export interface SettingMeta {
  /** the environment variable */
  env: string;
  /** the default as the docs table shows it */
  shown: string;
  /** what the variable accepts, for the startup error ("must be <accepts>") */
  accepts: string;
  doc: string;
}

const META = z.registry<SettingMeta>();

/** A setting: a raw environment value (undefined: unset or empty) to its typed value. */
export type Setting<T> = z.ZodType<T, string | undefined>;

/** One set of spellings for every boolean setting, any case. */
export const TRUE_WORDS = ['1', 'true', 'on', 'yes'];
export const FALSE_WORDS = ['0', 'false', 'off', 'no'];
const BOOLEAN_ACCEPTS = `one of ${[...TRUE_WORDS, ...FALSE_WORDS].join(', ')} (any case)`;

/**
 * The default: the raw value an operator would write (parsed by the setting's own rule, so the documented default
 * is the default), or a computed value with the words the table shows for it.
 */
export type Default<T> = string | { value: () => T; shown: string };

interface Declared<D> {
  env: string;
  default: D;
  doc: string;
}

function define<T, D = T>(
  rule: z.ZodType<T, string>,
  accepts: string,
  o: Declared<Default<D>> & { shown?: string },
): Setting<T | D> {
  const fallback: () => T | D = typeof o.default === 'string' ? () => rule.parse(o.default) : o.default.value;
  // a default the rule refuses is a mistake in this repository: fail at import, not at the first start without it
  if (typeof o.default === 'string') fallback();
  const shown = o.shown ?? (typeof o.default === 'string' ? o.default : o.default.shown);
  const s = rule.optional().transform((v): T | D => (v === undefined ? fallback() : v));
  META.add(s, { env: o.env, shown, accepts, doc: o.doc });
  return s;
}

/** An integer from `min` (to `max`); `Number()`'s reading of the text, as before (`1e3`, `0x10` pass). */
export function integer(o: Declared<Default<number>> & { min: number; max?: number; shown?: string }): Setting<number> {
  const max = o.max ?? Number.MAX_SAFE_INTEGER;
  const accepts = o.max === undefined ? `an integer of at least ${o.min}` : `an integer from ${o.min} to ${o.max}`;
  return define(z.string().transform(Number).pipe(z.number().int().min(o.min).max(max)), accepts, o);
}

/** An integer from `min`, or none (`null`) when unset. */
export function optionalInteger(o: { env: string; min: number; shown: string; doc: string }): Setting<number | null> {
  const rule = z.string().transform(Number).pipe(z.number().int().min(o.min));
  return define<number, null>(rule, `an integer of at least ${o.min}`, {
    ...o,
    default: { value: () => null, shown: o.shown },
  });
}

/** Comma-separated integers from `min`; empty entries are skipped. */
export function integerList(o: Declared<string> & { min: number }): Setting<number[]> {
  const rule = z
    .string()
    .transform(splitList)
    .pipe(z.array(z.string().transform(Number).pipe(z.number().int().min(o.min))));
  return define(rule, `comma-separated integers of at least ${o.min}`, o);
}

/** A boolean in one of the spellings above. */
export function flag(o: Declared<string>): Setting<boolean> {
  const rule = z.stringbool({ truthy: TRUE_WORDS, falsy: FALSE_WORDS, case: 'insensitive' });
  return define(rule, BOOLEAN_ACCEPTS, o);
}

/** One of a fixed set of words (exact). */
export function oneOf<const V extends readonly [string, ...string[]]>(
  values: V,
  o: Declared<V[number]>,
): Setting<V[number]> {
  return define(z.enum(values), `one of ${values.join(', ')}`, o);
}

/** Free text, or text of a shape (`pattern`, said as `accepts`). */
export function text(
  o: Declared<Default<string>> & { shown?: string; pattern?: RegExp; accepts?: string },
): Setting<string> {
  const rule = o.pattern ? z.string().regex(o.pattern) : z.string();
  return define(rule, o.accepts ?? 'any text', o);
}

/** A path, made absolute against the working directory. */
export function path(o: Declared<string>): Setting<string> {
  return define(
    z.string().transform((p) => resolve(p)),
    'a path',
    o,
  );
}

/** Comma-separated words; blanks around them and empty entries are dropped. */
export function wordList(o: Declared<Default<string[]>> & { shown?: string }): Setting<string[]> {
  return define(z.string().transform(splitList), 'comma-separated words', o);
}

function splitList(raw: string): string[] {
  return raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/** A setting's registered entry (every member of a settings object has one). */
export function metaOf(s: z.ZodType): SettingMeta {
  const m = META.get(s);
  if (!m) throw new Error('not a setting (declare it with the builders of src/config/setting.ts)');
  return m;
}

/** The settings of a schema in its order, each with its key. */
export function entriesOf(schema: z.ZodObject): { key: string; meta: SettingMeta }[] {
  return Object.entries(schema.shape).map(([key, s]) => ({ key, meta: metaOf(s as z.ZodType) }));
}

/** A configuration that cannot be read: every bad variable, its value and what it accepts, in one message. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads a settings object from the environment; an unset or empty variable takes its default. */
export function readSettings<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.output<S> {
  const raw: Record<string, string | undefined> = {};
  for (const { key, meta } of entriesOf(schema)) raw[key] = env[meta.env] || undefined;
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const lines = new Set<string>();
  for (const issue of r.error.issues) {
    const key = String(issue.path[0]);
    const meta = metaOf(schema.shape[key] as z.ZodType);
    lines.add(`${meta.env} must be ${meta.accepts}, got "${raw[key]}"`);
  }
  throw new ConfigError([...lines].join('; '));
}

/** The Markdown table of a settings object: variable, default, meaning. */
export function settingsTable(schema: z.ZodObject): string {
  const rows = entriesOf(schema).map(({ meta }) => `| \`${meta.env}\` | ${meta.shown} | ${meta.doc} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
