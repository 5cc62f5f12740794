// Scene arguments from the command line (render, eval, check, schema): `--args FILE.json` (an object), then each
// `--arg name=value` and `--arg-json name=JSON` in order over it. A `--arg` value is typed by the declared type of the
// parameter it names, as the JSON table of docs/language.md says: a Number/Int/Float parameter takes it as a number,
// a Bool as true/false, a List or a record as JSON, anything else (String, unit types, Color) as the string itself;
// the language then binds the args and reports what does not fit (docs/cli.md).
import { readFileSync } from 'node:fs';
import { describeScene, typedArg } from '../lang/index.js';
import { UsageError } from './flags.js';

/** One argument flag as typed, in order. */
export interface ArgFlag {
  flag: '--arg' | '--arg-json' | '--args';
  value: string;
}

/** Whether `a` (as typed, before any `=value`) is one of the argument flags. */
export const ARG_FLAGS = ['--arg', '--arg-json', '--args'] as const;

/** A file that could not be read: exit 66, as an unreadable source is. */
export class ArgsFileError extends Error {}

function nameValue(flag: string, s: string): [string, string] {
  const eq = s.indexOf('=');
  if (eq <= 0) throw new UsageError(`${flag} wants NAME=VALUE (e.g. ${flag} name=Ana), got '${s}'`);
  return [s.slice(0, eq), s.slice(eq + 1)];
}

/**
 * The args object of the flags for `source` (undefined when no flag was given). Throws a UsageError for a flag
 * written wrong, an ArgsFileError for an unreadable --args file.
 */
export function argsFromFlags(flags: readonly ArgFlag[], source: string): Record<string, unknown> | undefined {
  if (flags.length === 0) return undefined;
  const args: Record<string, unknown> = {};
  const raw = new Map<string, string>();
  for (const { flag, value } of flags) {
    if (flag === '--args') {
      let text: string;
      try {
        text = readFileSync(value, 'utf8');
      } catch (e) {
        throw new ArgsFileError(`could not read --args ${value}: ${(e as Error).message}`);
      }
      let obj: unknown;
      try {
        obj = JSON.parse(text);
      } catch (e) {
        throw new UsageError(`--args ${value} is not JSON: ${(e as Error).message}`);
      }
      if (!obj || typeof obj !== 'object' || Array.isArray(obj))
        throw new UsageError(`--args ${value} must hold a JSON object of argument names to values`);
      for (const [k, v] of Object.entries(obj)) {
        args[k] = v;
        raw.delete(k);
      }
    } else if (flag === '--arg-json') {
      const [k, v] = nameValue(flag, value);
      try {
        args[k] = JSON.parse(v) as unknown;
      } catch (e) {
        throw new UsageError(`--arg-json ${k}: the value is not JSON: ${(e as Error).message}`);
      }
      raw.delete(k);
    } else {
      const [k, v] = nameValue(flag, value);
      args[k] = v;
      raw.set(k, v);
    }
  }
  // the scene these names render, and the declared type of each --arg it names
  const scene = describeScene(source, args).scene;
  for (const [k, v] of raw) args[k] = typedArg(scene?.params.find((p) => p.name === k)?.type, v);
  return args;
}
