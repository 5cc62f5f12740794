// A scene argument given as text (a `--arg` value, a CSV cell) read as the JSON its parameter's declared type takes:
// a Number/Int/Float parameter takes it as a number, a Bool as true/false, a List or a record as JSON, anything else
// (String, unit types, Color) as the string itself. The binding (scene-args.ts) then says what does not fit. The CLI's
// flags and rows and the editor's Batch tab read text the same way through this.

const NUMBERS = new Set(['Number', 'Int', 'Float']);

/** `v` as the JSON value a parameter of declared type `type` takes (the text itself when it is not one). */
export function typedArg(type: string | undefined, v: string): unknown {
  if (type === undefined) return v;
  if (NUMBERS.has(type)) return v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
  if (type === 'Bool') return v === 'true' ? true : v === 'false' ? false : v;
  if (type.startsWith('List<') || type.startsWith('{')) {
    try {
      return JSON.parse(v) as unknown;
    } catch {
      return v;
    }
  }
  return v;
}
