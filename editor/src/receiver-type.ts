// The type of the value before a `.` in the editor, read back from the text, for completion by receiver: after
// `rect(...).` only the methods that apply to a Layer. Known only where the text says it: a library call
// (`rect(...)`, `text.glyph(...)`), a chain of methods on one (`sphere(...).material(...)`), or a name the document
// binds once with `let` to one of those. Anything else is unknown (null) and every method is offered, as before.
// The same typing as the language's warnings (src/lang/library-warnings.ts), read from text rather than a tree,
// since the text being typed rarely parses.
import { appliesTo, stdEntry } from '../../src/lang/stdlib-docs.js';

/** The result types a receiver may have that some method applies to, or that no method applies to (a Light). */
const KNOWN = new Set(['Layer', 'Solid', 'Image', 'Outline', 'Light', 'Camera', 'Blob', 'Gradient', 'Effect']);
const NAME_PATH = /([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\s*$/;
/** how far back the text is read: a receiver is a line or a few, never a whole document */
const WINDOW = 4000;

/** The index of the `(` that the `)` at `close` closes, skipping strings; -1 when unbalanced. */
function openingParen(text: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const c = text[i];
    if (c === '"') {
      // back to the string's opening quote (escapes are rare in a receiver; a stray quote ends the search)
      const open = text.lastIndexOf('"', i - 1);
      if (open < 0) return -1;
      i = open;
      continue;
    }
    if (c === ')' || c === ']' || c === '}') depth++;
    else if (c === '(' || c === '[' || c === '{') {
      depth--;
      if (depth === 0) return c === '(' ? i : -1;
    }
  }
  return -1;
}

/** The type of the expression that ends `text` (just before a `.`), or null when the text does not say it. */
export function receiverType(text: string, doc: string = text, depth = 0): string | null {
  if (depth > 16) return null;
  const t = text.slice(-WINDOW).trimEnd();
  if (t.endsWith(')')) {
    const open = openingParen(t, t.length - 1);
    if (open <= 0) return null;
    const head = t.slice(0, open);
    const m = NAME_PATH.exec(head);
    if (!m) return null;
    const path = m[1]!;
    const before = head.slice(0, head.length - m[0].length);
    if (before.trimEnd().endsWith('.') && !path.includes('.')) {
      // `<value>.name(...)`: a method on what precedes the dot
      const recv = receiverType(before.trimEnd().slice(0, -1), doc, depth + 1);
      const method = stdEntry(path);
      if (!recv || !method || !appliesTo(method, recv)) return null;
      return method.result === 'Image' ? 'Image' : recv;
    }
    if (before.trimEnd().endsWith('.')) return null;
    const entry = stdEntry(path);
    if (entry && entry.kind === 'function' && KNOWN.has(entry.result)) return entry.result;
    if (path.includes('.')) {
      // `x.material(...)` where `x` is a name: the method on the name's type
      const dot = path.lastIndexOf('.');
      const recv = receiverType(path.slice(0, dot), doc, depth + 1);
      const method = stdEntry(path.slice(dot + 1));
      if (!recv || !method || !appliesTo(method, recv)) return null;
      return method.result === 'Image' ? 'Image' : recv;
    }
    return null;
  }
  const name = /(?:^|[^A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*)$/.exec(t)?.[1];
  if (!name) return null;
  // a name bound once by `let name = <expr>;` in the document: the type of that expression
  const lets = [...doc.matchAll(new RegExp(`\\blet\\s+${name}\\s*(?::[^=]*)?=([^;]*);`, 'g'))];
  if (lets.length !== 1) return null;
  return receiverType(lets[0]![1]!, doc, depth + 1);
}
