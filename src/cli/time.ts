// Durations typed on the command line, in any time unit of the language.
import { suffixDimension, toSeconds, unitTag } from '../lang/index.js';

/** `1.5`, `1.5s`, `500ms`, `250us`, `10ns` (any time unit of the language) → seconds, or null. */
export function parseAt(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([a-z]*)$/.exec(s.trim());
  if (!m) return null;
  const suffix = m[2]!;
  if (suffix !== '' && suffixDimension(suffix) !== 'Time') return null;
  return toSeconds({ value: Number(m[1]), unit: unitTag(suffix) });
}
