// A small flag parser for the file commands (render, mesh, vectorize): `--name value` or `--name=value`, `-o FILE`,
// some flags repeatable, everything else a positional argument. Errors are messages for a usage line (exit 2).

export type FlagKind = 'string' | 'number' | 'repeat';

export interface ParsedFlags {
  positional: string[];
  values: Map<string, string>;
  repeated: Map<string, string[]>;
}

export class UsageError extends Error {}

/** `spec` maps a flag as typed (`-o`, `--width`) to its kind; an unknown flag is a usage error. */
export function parseFlags(argv: readonly string[], spec: Readonly<Record<string, FlagKind>>): ParsedFlags {
  const out: ParsedFlags = { positional: [], values: new Map(), repeated: new Map() };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('-') || a === '-') {
      out.positional.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq > 0 ? a.slice(0, eq) : a;
    const kind = spec[name];
    if (!kind) throw new UsageError(`unknown flag '${name}'`);
    const value = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (value === undefined) throw new UsageError(`'${name}' needs a value`);
    if (kind === 'number' && !/^-?\d+(\.\d+)?$/.test(value.trim()))
      throw new UsageError(`'${name} ${value}' is not a number`);
    if (kind === 'repeat') out.repeated.set(name, [...(out.repeated.get(name) ?? []), value]);
    else if (out.values.has(name)) throw new UsageError(`'${name}' given twice`);
    else out.values.set(name, value);
  }
  return out;
}

export function numberFlag(f: ParsedFlags, name: string): number | undefined {
  const v = f.values.get(name);
  return v === undefined ? undefined : Number(v);
}
