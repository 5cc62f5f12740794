// Completion and hover for the standard library, both read from the language's one stdlib table
// (src/lang/stdlib-docs.ts), never a copy kept here. While a word is typed: the keywords and every global name with
// its signature. After `.`: the members of what is before it, with their signatures: `std.` the modules,
// `std.shapes.` that module's names, `text.` and `easing.` their names, any other value the postfix methods that apply
// to its type where the text says it (receiver-type.ts: after `rect(...).` a Layer's), else every method. Names
// need no import and a qualified `std.shapes.rect` is an inert node (stdlib.md §6.11), so a member picked after a
// `std.<module>.` path replaces the path with the plain name. Hover on a library name shows its signature and help.
import type { Completion, CompletionContext, CompletionResult } from '@codemirror/autocomplete';
import { hoverTooltip, type Tooltip } from '@codemirror/view';
import type { EditorState } from '@codemirror/state';
import {
  STDLIB,
  STD_MODULES,
  appliesTo,
  memberName,
  signature,
  sinceOf,
  type StdEntry,
} from '../../src/lang/stdlib-docs.js';
import { receiverType } from './receiver-type.js';

const TYPE: Record<StdEntry['kind'], string> = { function: 'function', method: 'method', symbol: 'constant' };

function info(e: StdEntry): string {
  const since = sinceOf(e);
  const notes = [e.implemented ? '' : 'not drawn by any runner', since ? `runner ${since}+` : ''].filter(Boolean);
  return [e.help, notes.length ? `(${notes.join('; ')})` : '', e.example ? `e.g. ${e.example}` : '']
    .filter(Boolean)
    .join('\n');
}

function option(e: StdEntry, label: string, apply?: string): Completion {
  return {
    label,
    type: TYPE[e.kind],
    detail: signature(e),
    info: info(e),
    ...(apply !== undefined ? { apply } : {}),
  };
}

/** Module name segments under `std.` (`shapes`, `anim`, ...). */
const MODULE_OPTIONS: readonly Completion[] = STD_MODULES.map((m) => ({
  label: m.slice('std.'.length),
  type: 'namespace',
  detail: m,
  info: `names of ${m}: ${STDLIB.filter((e) => e.module === m)
    .map((e) => e.name)
    .join(', ')}`,
}));

/** Globals while a word is typed: plain names, and the roots of dotted ones (`text`, `easing`) and `std`. */
export const GLOBAL_OPTIONS: readonly Completion[] = [
  ...STDLIB.filter((e) => e.kind !== 'method' && !e.name.includes('.')).map((e) => option(e, e.name)),
  ...[...new Set(STDLIB.filter((e) => e.name.includes('.')).map((e) => e.name.split('.')[0]!))].map((root) => ({
    label: root,
    type: 'namespace',
    detail: `${root}.*`,
    info: `names under ${root}.: ${STDLIB.filter((e) => e.name.startsWith(`${root}.`))
      .map((e) => memberName(e))
      .join(', ')}`,
  })),
  { label: 'std', type: 'namespace', detail: 'std.*', info: `the library's modules: ${STD_MODULES.join(', ')}` },
];

const METHOD_OPTIONS: readonly Completion[] = STDLIB.filter((e) => e.kind === 'method').map((e) => option(e, e.name));

/** The methods after a value of a known type (receiver-type.ts): only those that apply to it; else every method. */
function methodsFor(type: string | null): readonly Completion[] {
  if (type === null) return METHOD_OPTIONS;
  return STDLIB.filter((e) => appliesTo(e, type)).map((e) => option(e, e.name));
}

/** The members after `path.`; `from` is where a picked member's text starts replacing. */
function members(
  path: string,
  pathFrom: number,
  receiver: () => string | null,
): { options: readonly Completion[]; replaceFrom: number | null } {
  if (path === 'std') return { options: MODULE_OPTIONS, replaceFrom: null };
  if (path.startsWith('std.') && STD_MODULES.includes(path)) {
    const options = STDLIB.filter((e) => e.module === path && e.kind !== 'method').map((e) =>
      option(e, memberName(e), e.name),
    );
    return { options, replaceFrom: pathFrom };
  }
  const under = STDLIB.filter((e) => e.name.startsWith(`${path}.`) && !e.name.slice(path.length + 1).includes('.'));
  if (under.length) return { options: under.map((e) => option(e, memberName(e))), replaceFrom: null };
  return { options: methodsFor(receiver()), replaceFrom: null };
}

/** The completion source of the `.cm` mode: members after `.`, else the given globals (keywords and library). */
export function stdlibCompletions(globals: readonly Completion[]) {
  return (ctx: CompletionContext): CompletionResult | null => {
    const word = ctx.matchBefore(/[A-Za-z_][A-Za-z0-9_]*/);
    const at = word ? word.from : ctx.pos;
    if (ctx.state.sliceDoc(at - 1, at) === '.') {
      // the dotted name path before the dot, if the receiver is one (`std.shapes`, `text`), else a value
      const line = ctx.state.doc.lineAt(at);
      const before = ctx.state.sliceDoc(line.from, at - 1);
      const m = /(?:^|[^A-Za-z0-9_.])([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)$/.exec(before);
      const path = m ? m[1]! : '';
      const pathFrom = at - 1 - path.length;
      const { options, replaceFrom } = members(path, pathFrom, () =>
        receiverType(ctx.state.sliceDoc(0, at - 1), ctx.state.doc.toString()),
      );
      if (replaceFrom !== null)
        return {
          from: at,
          options: options.map((o) => ({
            ...o,
            apply: (view, _c, _from, to) =>
              view.dispatch({
                changes: { from: replaceFrom, to, insert: String(o.apply) },
                selection: { anchor: replaceFrom + String(o.apply).length },
              }),
          })),
          validFor: /^[A-Za-z0-9_]*$/,
        };
      return { from: at, options: options as Completion[], validFor: /^[A-Za-z0-9_]*$/ };
    }
    if ((!word || word.from === word.to) && !ctx.explicit) return null;
    return { from: at, options: globals as Completion[], validFor: /^[A-Za-z0-9_]*$/ };
  };
}

/** The library entry named at `pos` (the word under it, read with the dotted path it belongs to), or null. */
export function entryAt(state: EditorState, pos: number): { entry: StdEntry; from: number; to: number } | null {
  const line = state.doc.lineAt(pos);
  const text = line.text;
  let s = pos - line.from;
  let e = s;
  while (s > 0 && /[A-Za-z0-9_]/.test(text[s - 1]!)) s--;
  while (e < text.length && /[A-Za-z0-9_]/.test(text[e]!)) e++;
  if (s === e) return null;
  const word = text.slice(s, e);
  // the whole dotted path the word ends or sits in: `easing.out_cubic`, `std.shapes.rect`
  let ps = s;
  while (ps > 1 && text[ps - 1] === '.' && /[A-Za-z0-9_]/.test(text[ps - 2]!)) {
    ps--;
    while (ps > 0 && /[A-Za-z0-9_]/.test(text[ps - 1]!)) ps--;
  }
  const path = text.slice(ps, e);
  const segs = path.split('.');
  const afterValue = s > 0 && text[s - 1] === '.' && ps === s; // `).material`: a method on a value
  let entry: StdEntry | undefined;
  if (segs[0] === 'std' && segs.length >= 3) {
    const mod = `std.${segs[1]}`;
    entry = STDLIB.find((x) => x.module === mod && x.kind !== 'method' && memberName(x) === word);
  } else if (afterValue || segs.length > 1) {
    entry =
      STDLIB.find((x) => x.kind !== 'method' && x.name === path) ??
      STDLIB.find((x) => x.kind === 'method' && x.name === word);
  } else entry = STDLIB.find((x) => x.kind !== 'method' && x.name === word);
  if (!entry) return null;
  return { entry, from: line.from + s, to: line.from + e };
}

/** Hover on a library name: its signature and its help. */
export const stdlibHover = hoverTooltip((view, pos): Tooltip | null => {
  const hit = entryAt(view.state, pos);
  if (!hit) return null;
  return {
    pos: hit.from,
    end: hit.to,
    above: true,
    create() {
      const dom = document.createElement('div');
      dom.className = 'cm-stdlib-hover';
      dom.setAttribute('data-testid', 'stdlib-hover');
      const sig = document.createElement('code');
      sig.className = 'cm-stdlib-signature';
      sig.textContent = signature(hit.entry);
      const help = document.createElement('div');
      help.className = 'cm-stdlib-help';
      help.textContent = hit.entry.help;
      dom.append(sig, help);
      dom.style.cssText = 'padding: 4px 8px; max-width: 560px; font-size: 12px; line-height: 1.4';
      return { dom };
    },
  };
});
