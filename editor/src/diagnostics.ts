// The language's diagnostics in the editor: underlines with code, message and help on hover (@codemirror/lint), and
// the list under the editor (data-testid="diagnostics", one item per diagnostic with data-code and data-line).
import type { EditorView } from '@codemirror/view';
import { setDiagnostics, type Diagnostic as CmDiagnostic } from '@codemirror/lint';
import type { Diagnostic } from '../../src/lang/index.js';
import { offsetOf, spanOf } from './positions.js';

const SEVERITY = { error: 'error', warning: 'warning', note: 'info' } as const;

/**
 * The help without what the message already says: the language puts a hint such as "did you mean 'sq'?" in both,
 * and the page shows the two side by side, so each sentence of the help the message holds is left out.
 */
export function helpBeyond(message: string, help: string | undefined): string {
  if (!help) return '';
  return help
    .split(/(?<=[.?!])\s+/)
    .filter((sentence) => !message.includes(sentence.trim()))
    .join(' ')
    .trim();
}

function hoverText(d: Diagnostic): HTMLElement {
  const box = document.createElement('div');
  const head = document.createElement('div');
  head.textContent = `${d.code} ${d.message}`;
  box.append(head);
  const extra = [
    d.expected !== undefined ? `expected ${d.expected}` : '',
    d.actual !== undefined ? `found ${d.actual}` : '',
  ].filter(Boolean);
  for (const text of [extra.join(', '), helpBeyond(d.message, d.help), d.repair?.summary].filter(Boolean)) {
    const p = document.createElement('div');
    p.className = 'cm-diag-help';
    p.textContent = text!;
    box.append(p);
  }
  return box;
}

/** Shows `diags` in the editor and in `list`. */
export function showDiagnostics(view: EditorView, list: HTMLElement, diags: readonly Diagnostic[]): void {
  const doc = view.state.doc;
  const marks: CmDiagnostic[] = diags.map((d) => {
    const { from, to } = spanOf(doc, d);
    const message = `${d.code} ${d.message}`;
    return { from, to, severity: SEVERITY[d.severity], source: d.code, message, renderMessage: () => hoverText(d) };
  });
  view.dispatch(setDiagnostics(view.state, marks));
  list.replaceChildren(
    ...diags.map((d) => {
      const li = document.createElement('li');
      li.className = d.severity;
      li.dataset.code = d.code;
      li.dataset.line = String(d.line);
      li.dataset.column = String(d.column);
      const go = document.createElement('button');
      go.type = 'button';
      go.textContent = `${d.line}:${d.column}`;
      go.setAttribute('aria-label', `Go to line ${d.line}, column ${d.column}`);
      go.onclick = () => jumpTo(view, d.line, d.column);
      const code = document.createElement('span');
      code.className = 'code';
      code.textContent = d.code;
      const msg = document.createElement('span');
      msg.textContent = d.message;
      const help = document.createElement('span');
      help.className = 'help';
      help.textContent = helpBeyond(d.message, d.help);
      li.append(go, code, msg, help);
      return li;
    }),
  );
}

/** Moves the cursor to a 1-based line and byte column and focuses the editor. */
export function jumpTo(view: EditorView, line: number, column: number): void {
  const at = offsetOf(view.state.doc, line, column);
  view.dispatch({ selection: { anchor: at }, scrollIntoView: true });
  view.focus();
}
