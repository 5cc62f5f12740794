// The one canonical layout of a .cm source (`cmrender fmt`). It works on the lexer's tokens and the comments between
// them, and changes only whitespace, so the formatted source is the same program (the parser ignores whitespace):
// - indentation: two spaces per open bracket, plus one for a line that continues an expression (`.material(...)` on
//   its own line, the right side of `=` or `=>`); a line starting with a closer is at its opener's level;
// - within a line: no space inside ( ) [ ], before , ; : ) ] or around `.`; one space after , and :, around = => ->
//   and the binary operators that have no unary form, and inside { }; elsewhere one space where the source had any;
// - the author's line breaks are kept (two or more blank lines become one), trailing whitespace goes, the file ends
//   with one newline; comments stay where they are, their text untouched, as do strings (raw strings may span lines).
// Idempotent by construction: every decision depends only on the tokens and on whether whitespace was there.
// A source that does not parse is not formatted (its diagnostics come back instead).

import { lex, type Token } from './lexer.js';
import { parse } from './parser.js';
import { SourceMap, type Diagnostic } from './diagnostics.js';

export type FormatResult = { ok: true; text: string } | { ok: false; diagnostics: Diagnostic[] };

const OPENERS = new Set(['(', '[', '{']);
const CLOSERS = new Set([')', ']', '}']);
/** after these a new line starts a new item, not a continuation */
const ITEM_ENDS = new Set([';', ',', '(', '[', '{', '}']);
/** binary operators with no unary or other reading: always spaced */
const SPACED = new Set(['=', '=>', '->', '==', '!=', '&&', '+', '*', '/', '%', '**', '<=', '>=']);

type Piece = { kind: 'nl'; count: number } | { kind: 'comment'; text: string; line: boolean };

/** The comments and line breaks of the text between two tokens, in order. */
function gapPieces(gap: string): Piece[] {
  const out: Piece[] = [];
  let nl = 0;
  const flush = () => {
    if (nl) out.push({ kind: 'nl', count: nl });
    nl = 0;
  };
  for (let i = 0; i < gap.length;) {
    const c = gap[i]!;
    if (c === '\n') {
      nl++;
      i++;
    } else if (gap.startsWith('//', i)) {
      flush();
      let j = gap.indexOf('\n', i);
      if (j < 0) j = gap.length;
      out.push({ kind: 'comment', text: gap.slice(i, j).replace(/\s+$/, ''), line: true });
      i = j;
    } else if (gap.startsWith('/*', i)) {
      flush();
      let j = gap.indexOf('*/', i + 2);
      j = j < 0 ? gap.length : j + 2;
      out.push({ kind: 'comment', text: gap.slice(i, j), line: false });
      i = j;
    } else i++;
  }
  flush();
  return out;
}

/** Space between two tokens on one line: forced, forbidden, or kept as the source had it (`had`). */
function spaceBetween(p: Token, c: Token, had: boolean): string {
  const pt = p.kind === 'punct' ? p.text : '';
  const ct = c.kind === 'punct' ? c.text : '';
  if (ct === ')' || ct === ']' || ct === ',' || ct === ';' || ct === ':' || ct === '.') return '';
  if (pt === '(' || pt === '[' || pt === '.') return '';
  if (ct === '}' || pt === '{' || ct === '{') return ' ';
  if (pt === ',' || pt === ':') return ' ';
  if (ct === '[' && p.kind === 'ident' && p.text === 'compose') return ' '; // the form, not an index
  if (SPACED.has(pt) || SPACED.has(ct)) return ' ';
  return had ? ' ' : '';
}

export function formatSource(source: string): FormatResult {
  const bom = source.charCodeAt(0) === 0xfeff ? '\ufeff' : '';
  const text = (bom ? source.slice(1) : source).replace(/\r\n/g, '\n');
  const parsed = parse(text);
  if (!parsed.ok) {
    const e = parsed.error;
    const sm = new SourceMap(text);
    return {
      ok: false,
      diagnostics: [
        sm.diag(e.start, e.end, {
          code: e.code,
          message: e.message,
          expected: e.expected,
          actual: e.found,
          help: 'fmt formats a source that parses; fix the syntax error first',
        }),
      ],
    };
  }
  const toks = lex(text).filter((t) => t.kind !== 'eof');
  let out = '';
  let depth = 0;
  let prev: Token | null = null;
  let atLineStart = true;
  let pos = 0;

  const indent = (next: Token | null) => {
    const closer = next?.kind === 'punct' && CLOSERS.has(next.text);
    const cont = prev !== null && next !== null && !closer && !(prev.kind === 'punct' && ITEM_ENDS.has(prev.text));
    return '  '.repeat(Math.max(0, depth - (closer ? 1 : 0)) + (cont ? 1 : 0));
  };
  const newline = (count: number) => {
    out = out.replace(/[ \t]+$/, '');
    if (out === '') return; // no blank lines at the start
    out += '\n'.repeat(Math.min(count, 2));
    atLineStart = true;
  };
  /** Writes the gap before `next` (null: the end of the file) and the separator to it. */
  const gap = (g: string, next: Token | null) => {
    const sawSpace = g.length > 0;
    let afterComment = false;
    for (const piece of gapPieces(g)) {
      if (piece.kind === 'nl') {
        newline(piece.count);
        continue;
      }
      if (atLineStart) out += indent(next);
      else out += ' ';
      out += piece.text;
      atLineStart = false;
      afterComment = true;
    }
    if (next === null) return;
    if (atLineStart) out += indent(next);
    else if (afterComment) out += ' ';
    else if (prev) out += spaceBetween(prev, next, sawSpace);
    atLineStart = false;
  };

  for (const t of toks) {
    gap(text.slice(pos, t.start), t);
    if (t.kind === 'punct' && CLOSERS.has(t.text)) depth = Math.max(0, depth - 1);
    out += t.text;
    if (t.kind === 'punct' && OPENERS.has(t.text)) depth++;
    prev = t;
    pos = t.end;
  }
  gap(text.slice(pos), null);
  // (trailing spaces inside a raw string are its value: only the separators written here are trimmed)
  out = out.replace(/[ \t]+$/, '').replace(/\n*$/, '\n');
  return { ok: true, text: bom + (out === '\n' ? '' : out) };
}
