// `cmrender render FILE --rows rows.csv|rows.jsonl`: the rows of a batch from a file, each row the args of one render.
// A CSV's header names the parameters and each cell is typed as a `--arg` value is (by its parameter's declared
// type: arg-flags.ts); a JSON lines file holds one JSON object of args per line (blank lines skipped). A column or key
// `_name` names the row's output (`{name}` in -o), else its index, zero-padded. Every row is bound to the scene
// before anything renders: the first that does not fit is refused naming its row, its line and its column.
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { parse } from 'csv-parse/sync';
import { describeScene, typedArg } from '../lang/index.js';
import { ArgsFileError } from './arg-flags.js';
import { UsageError } from './flags.js';

/** The column (or JSON key) that names a row's output instead of its index. */
export const NAME_COLUMN = '_name';
const NAME_RE = /^[A-Za-z0-9._-]{1,100}$/;

export interface Row {
  /** 1-based, as a person counts the data rows */
  index: number;
  /** the file's line the row starts at */
  line: number;
  name: string;
  args: Record<string, unknown>;
}

/** A row that does not fit the scene, or a file that is not CSV or JSON lines: exit 2, before anything renders. */
export class RowError extends Error {}

/** The rows of `path` for `source`, every one checked against the scene; throws a RowError naming the first bad one. */
export function readRows(path: string, source: string): Row[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ArgsFileError(`could not read --rows ${path}: ${(e as Error).message}`);
  }
  const ext = extname(path).toLowerCase();
  const raw =
    ext === '.csv' ? csvRows(path, text) : ext === '.jsonl' || ext === '.ndjson' ? jsonRows(path, text) : undefined;
  if (!raw) throw new UsageError(`--rows ${path}: use a .csv or a .jsonl file`);
  if (raw.length === 0) throw new RowError(`${path}: no rows`);
  const width = Math.max(3, String(raw.length - 1).length);
  const names = new Map<string, number>();
  return raw.map(({ line, values, typed }, i) => {
    const where = `${path}: row ${i + 1} (line ${line})`;
    const { [NAME_COLUMN]: given, ...rest } = values;
    const name = given === undefined || given === '' ? String(i).padStart(width, '0') : String(given);
    if (!NAME_RE.test(name))
      throw new RowError(`${where}, column ${NAME_COLUMN}: a name must be 1 to 100 letters, digits, ".", "_" or "-"`);
    const twice = names.get(name);
    if (twice !== undefined)
      throw new RowError(`${where}, column ${NAME_COLUMN}: "${name}" is row ${twice}'s name too`);
    names.set(name, i + 1);
    let args: Record<string, unknown> = rest;
    if (typed) {
      // each cell as a --arg value: typed by the declared type of the parameter it names
      const scene = describeScene(source, rest).scene;
      args = Object.fromEntries(
        Object.entries(rest).map(([k, v]) => [k, typedArg(scene?.params.find((p) => p.name === k)?.type, String(v))]),
      );
    }
    const problem = describeScene(source, args).problems[0];
    if (problem) {
      const column = /^args\.([^.[]+)/.exec(problem.path)?.[1];
      throw new RowError(`${where}${column ? `, column ${column}` : ''}: ${problem.message}`);
    }
    return { index: i + 1, line, name, args };
  });
}

interface RawRow {
  line: number;
  values: Record<string, unknown>;
  /** cells are strings to be typed as --arg values are (CSV), else JSON values as given */
  typed: boolean;
}

function csvRows(path: string, text: string): RawRow[] {
  let records: { record: Record<string, string>; info: { lines: number } }[];
  try {
    records = parse(text, { columns: true, skip_empty_lines: true, trim: false, bom: true, info: true });
  } catch (e) {
    throw new RowError(`${path}: not CSV: ${(e as Error).message}`);
  }
  return records.map((r) => ({ line: r.info.lines, values: r.record, typed: true }));
}

function jsonRows(path: string, text: string): RawRow[] {
  const out: RawRow[] = [];
  for (const [i, l] of text.split('\n').entries()) {
    if (l.trim() === '') continue;
    let v: unknown;
    try {
      v = JSON.parse(l);
    } catch (e) {
      throw new RowError(`${path}: row ${out.length + 1} (line ${i + 1}): not JSON: ${(e as Error).message}`);
    }
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new RowError(`${path}: row ${out.length + 1} (line ${i + 1}): a row must be a JSON object of args`);
    out.push({ line: i + 1, values: v as Record<string, unknown>, typed: false });
  }
  return out;
}
