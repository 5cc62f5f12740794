// Format (Shift+Alt+F and the Format button): the source in the language's one canonical layout, the same code as
// `cmrender fmt` (src/lang/format.ts). The whole source is replaced in one transaction, so one undo takes it back;
// the cursor stays by the same token (formatting changes only whitespace, so the count of other characters before
// it is the same in both texts). A source that does not parse is left as it is, and the note says why.
import type { EditorView } from '@codemirror/view';
import { EditorSelection } from '@codemirror/state';
import { formatSource } from '../../src/lang/format.js';

const isSpace = (c: string | undefined) => c !== undefined && /\s/.test(c);

/**
 * Where `pos` of `before` lands in `after`, which differs from it only in whitespace: before the same token, or, in
 * whitespace, after the same token and as many line breaks into the gap (then past the new line's indentation).
 */
export function mapPosition(before: string, pos: number, after: string): number {
  let n = 0;
  for (let i = 0; i < pos; i++) if (!isSpace(before[i])) n++;
  let j = 0;
  for (let seen = 0; n > 0 && j < after.length; j++) {
    if (!isSpace(after[j]) && ++seen === n) {
      j++;
      break;
    }
  }
  if (pos < before.length && !isSpace(before[pos])) {
    while (j < after.length && isSpace(after[j])) j++;
    return j;
  }
  let breaks = 0;
  for (let i = pos - 1; i >= 0 && isSpace(before[i]); i--) if (before[i] === '\n') breaks++;
  if (breaks === 0) return j;
  while (j < after.length && isSpace(after[j]) && breaks > 0) if (after[j++] === '\n') breaks--;
  while (j < after.length && (after[j] === ' ' || after[j] === '\t')) j++;
  return j;
}

/** Formats the view's source; returns the note to show (null when there is nothing to say). */
export function formatView(view: EditorView): { text: string; bad: boolean } {
  const before = view.state.doc.toString();
  const r = formatSource(before);
  if (!r.ok) {
    const d = r.diagnostics[0]!;
    // the diagnostics list says the rest
    return { text: `Format: the source does not parse (line ${d.line}); nothing changed`, bad: true };
  }
  if (r.text === before) return { text: 'Format: already formatted', bad: false };
  const sel = view.state.selection;
  view.dispatch({
    changes: { from: 0, to: before.length, insert: r.text },
    selection: EditorSelection.create(
      sel.ranges.map((g) =>
        EditorSelection.range(mapPosition(before, g.anchor, r.text), mapPosition(before, g.head, r.text)),
      ),
      sel.mainIndex,
    ),
    scrollIntoView: true,
    // not an input event: history never joins it with the typing before it, so one undo takes back the format
    userEvent: 'format',
  });
  return { text: 'Formatted', bad: false };
}
