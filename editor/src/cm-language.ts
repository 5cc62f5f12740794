// The `.cm` mode for CodeMirror 6: a stream parser (StreamLanguage), not a Lezer grammar. Why: src/lang's own
// parser is the one judge of syntax and reports every error as a diagnostic as you type (main.ts, diagnostics.ts), so a second,
// full grammar here would only be a copy to keep in step with language.md. What the editor needs from a mode is
// token colours, brackets and indentation, and the lexer's rules (language.md §1) give those line by line: words
// (contextual keywords, §1.4), numbers with unit suffixes, hex colours, "strings", """raw strings""" and comments,
// both of which may span lines (kept in the state). Bracket matching uses the plain-bracket fallback of
// @codemirror/language, comment toggling the `commentTokens` below, auto-indent the bracket depth in the state.
import {
  StreamLanguage,
  LanguageSupport,
  HighlightStyle,
  syntaxHighlighting,
  indentUnit,
  type StringStream,
} from '@codemirror/language';
import { tags as t } from '@lezer/highlight';
import { completeAnyWord, type Completion, type CompletionContext } from '@codemirror/autocomplete';
import { GLOBAL_OPTIONS, stdlibCompletions, stdlibHover } from './stdlib-help.js';
import { UNIT_SUFFIXES } from '../../src/lang/units.js';

/** Words with a keyword role (language.md §1.4); outside those places they are names, which colouring ignores. */
const KEYWORDS = new Set([
  'runner',
  'use',
  'as',
  'let',
  'component',
  'scene',
  'filter',
  'export',
  'if',
  'else',
  'match',
  'animate',
  'with',
  'compose',
]);
const ATOMS = new Set(['true', 'false']);
const COLOR_FORMS = new Set(['oklch', 'oklab', 'srgb']);

/** Unit suffixes, longest first, as the lexer tries them. */
const UNITS: readonly string[] = UNIT_SUFFIXES;

interface CmState {
  /** inside a block comment or a raw string that began on an earlier line */
  inside: 'comment' | 'raw' | null;
  /** open brackets at the end of the tokens read so far, for indentation */
  depth: number;
  /** the last significant token: '.' makes the next word a member name */
  afterDot: boolean;
}

function word(stream: StringStream, state: CmState): string {
  stream.match(/^[A-Za-z_][A-Za-z0-9_]*/);
  const w = stream.current();
  if (state.afterDot) return /^[A-Z]/.test(w) ? 'typeName' : 'propertyName';
  if (KEYWORDS.has(w)) return 'keyword';
  if (ATOMS.has(w)) return 'bool';
  if (COLOR_FORMS.has(w)) return 'color';
  if (/^[A-Z]/.test(w)) return 'typeName';
  // a call: the name before `(`
  if (stream.match(/^\s*\(/, false)) return 'function';
  return 'variableName';
}

function token(stream: StringStream, state: CmState): string | null {
  if (state.inside === 'comment') {
    if (stream.skipTo('*/')) {
      stream.pos += 2;
      state.inside = null;
    } else stream.skipToEnd();
    return 'comment';
  }
  if (state.inside === 'raw') {
    if (stream.skipTo('"""')) {
      stream.pos += 3;
      state.inside = null;
    } else stream.skipToEnd();
    return 'string';
  }
  if (stream.eatSpace()) return null;
  const wasDot = state.afterDot;
  state.afterDot = false;
  if (stream.match('//')) {
    stream.skipToEnd();
    state.afterDot = wasDot;
    return 'comment';
  }
  if (stream.match('/*')) {
    state.inside = 'comment';
    state.afterDot = wasDot;
    return token(stream, state) ?? 'comment';
  }
  if (stream.match('"""')) {
    state.inside = 'raw';
    return token(stream, state) ?? 'string';
  }
  if (stream.peek() === '"') {
    stream.next();
    for (let c = stream.next(); c !== undefined; c = stream.next()) {
      if (c === '\\') stream.next();
      else if (c === '"') break;
    }
    return 'string';
  }
  if (stream.match(/^#[0-9A-Fa-f]+/)) return 'color';
  if (stream.match(/^[0-9][0-9_]*(\.[0-9][0-9_]*)?/)) {
    for (const u of UNITS) if (stream.match(u)) break;
    return 'number';
  }
  if (/[A-Za-z_]/.test(stream.peek() ?? '')) {
    state.afterDot = wasDot;
    const style = word(stream, state);
    state.afterDot = false;
    return style;
  }
  const c = stream.next()!;
  if ('([{'.includes(c)) {
    state.depth++;
    return 'bracket';
  }
  if (')]}'.includes(c)) {
    state.depth = Math.max(0, state.depth - 1);
    return 'bracket';
  }
  if (c === '.') {
    state.afterDot = true;
    return 'punctuation';
  }
  if (';,:'.includes(c)) return 'punctuation';
  stream.match(/^[=>|&*]/);
  return 'operator';
}

export const cmStreamLanguage = StreamLanguage.define<CmState>({
  name: 'cm',
  startState: () => ({ inside: null, depth: 0, afterDot: false }),
  copyState: (s) => ({ ...s }),
  token,
  indent(state, textAfter, cx) {
    if (state.inside) return null;
    const closing = /^\s*[)\]}]/.test(textAfter) ? 1 : 0;
    return Math.max(0, state.depth - closing) * cx.unit;
  },
  languageData: {
    commentTokens: { line: '//', block: { open: '/*', close: '*/' } },
    closeBrackets: { brackets: ['(', '[', '{', '"'] },
    indentOnInput: /^\s*[)\]}]$/,
  },
  tokenTable: { unit: t.unit, color: t.color, bool: t.bool, function: t.function(t.variableName) },
});

const cmHighlight = HighlightStyle.define([
  { tag: t.keyword, color: '#c678dd', fontWeight: '600' },
  { tag: [t.number, t.unit], color: '#d19a66' },
  { tag: t.color, color: '#56b6c2' },
  { tag: t.bool, color: '#d19a66' },
  { tag: t.string, color: '#98c379' },
  { tag: t.comment, color: '#7f848e', fontStyle: 'italic' },
  { tag: t.typeName, color: '#e5c07b' },
  { tag: t.function(t.variableName), color: '#61afef' },
  { tag: t.propertyName, color: '#61afef' },
  { tag: t.operator, color: '#abb2bf' },
  { tag: t.bracket, color: '#abb2bf' },
]);

const NAMES: readonly Completion[] = [
  ...[...KEYWORDS, ...ATOMS, ...COLOR_FORMS].map((label) => ({ label, type: 'keyword' })),
  ...GLOBAL_OPTIONS,
];

/** The document's own words, except after `.`, where only the members of what is before it belong. */
function documentWords(ctx: CompletionContext) {
  const word = ctx.matchBefore(/[A-Za-z_][A-Za-z0-9_]*/);
  const at = word ? word.from : ctx.pos;
  return ctx.state.sliceDoc(at - 1, at) === '.' ? null : completeAnyWord(ctx);
}

/**
 * The language, its colours, completions (keywords, the standard library with signatures, members after `.`, the
 * document's own words), hover help on library names (stdlib-help.ts), 2-space indent.
 */
export function cmLanguage(): LanguageSupport {
  return new LanguageSupport(cmStreamLanguage, [
    syntaxHighlighting(cmHighlight),
    indentUnit.of('  '),
    cmStreamLanguage.data.of({ autocomplete: stdlibCompletions(NAMES) }),
    cmStreamLanguage.data.of({ autocomplete: documentWords }),
    stdlibHover,
  ]);
}
