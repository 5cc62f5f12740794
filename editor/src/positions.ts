// Diagnostics count lines from 1 and columns in UTF-8 bytes from 1 (language.md §7, as /v1/check answers);
// CodeMirror counts UTF-16 code units from 0. These two functions are the only translation between them.
import type { Text } from '@codemirror/state';

/** UTF-16 index in `line` of the byte offset `bytes` (clamped to the line). */
function byteToUtf16(line: string, bytes: number): number {
  let b = 0;
  let i = 0;
  while (i < line.length && b < bytes) {
    const c = line.codePointAt(i)!;
    b += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    i += c > 0xffff ? 2 : 1;
  }
  return i;
}

/** Document offset of a 1-based line and 1-based UTF-8 byte column. */
export function offsetOf(doc: Text, line: number, column: number): number {
  const l = doc.line(Math.min(Math.max(1, line), doc.lines));
  return l.from + byteToUtf16(l.text, Math.max(0, column - 1));
}

/** The span [from, to) of a diagnostic of `length` bytes; it may run over line ends. */
export function spanOf(doc: Text, d: { line: number; column: number; length: number }): { from: number; to: number } {
  const from = offsetOf(doc, d.line, d.column);
  // walk `length` bytes forward from `from` through the document text
  const rest = doc.sliceString(from, Math.min(doc.length, from + Math.max(0, d.length)));
  return { from, to: from + byteToUtf16(rest, d.length) };
}
