// Lexer for .cm sources (language.md §1). Every word is an IDENT; the parser decides keywords.

import { UNIT_SUFFIXES } from './units.js';

export type TokKind = 'ident' | 'number' | 'string' | 'hex' | 'punct' | 'eof' | 'error';

export interface Token {
  kind: TokKind;
  /** source text of the token (for punct: the operator itself) */
  text: string;
  start: number;
  end: number;
  /** number tokens: digit text (without unit) and unit suffix ('' = none) */
  digits?: string;
  unit?: string;
  /** string tokens: true for """raw""" */
  raw?: boolean;
  /** error tokens: the message */
  message?: string;
}

const PUNCT2 = ['||', '&&', '==', '!=', '<=', '>=', '->', '=>', '**'];
const PUNCT1 = ';:,.*=()[]{}<>|+-/%!';

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentChar(c: number): boolean {
  return isIdentStart(c) || isDigit(c);
}
function isHex(c: number): boolean {
  return isDigit(c) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}
function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 11;
}

function describeChar(ch: string): string {
  const cp = ch.codePointAt(0)!;
  if (cp < 32 || cp === 127) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  if (cp > 127 && (cp === 0xa0 || cp === 0x2028 || cp === 0x2029 || cp === 0xfeff))
    return `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return `'${String.fromCodePoint(cp)}'`;
}

/**
 * Tokenises the whole text. Stops at the first lexical error and ends the list with
 * one `error` token (carrying the message) followed by `eof`.
 * `start` is the offset where lexing begins (after a BOM, if any).
 */
export function lex(src: string, start = 0): Token[] {
  const toks: Token[] = [];
  const n = src.length;
  let i = start;
  const err = (at: number, end: number, message: string): Token[] => {
    toks.push({ kind: 'error', text: src.slice(at, end), start: at, end, message });
    toks.push({ kind: 'eof', text: '', start: n, end: n });
    return toks;
  };
  while (i < n) {
    const c = src.charCodeAt(i);
    if (isSpace(c)) {
      i++;
      continue;
    }
    // comments
    if (c === 47 /* / */ && i + 1 < n) {
      const d = src.charCodeAt(i + 1);
      if (d === 47) {
        const nl = src.indexOf('\n', i + 2);
        i = nl < 0 ? n : nl;
        continue;
      }
      if (d === 42) {
        const close = src.indexOf('*/', i + 2);
        if (close < 0) return err(i, i + 2, 'syntax error: unterminated block comment');
        i = close + 2;
        continue;
      }
    }
    const s = i;
    if (isIdentStart(c)) {
      i++;
      while (i < n && isIdentChar(src.charCodeAt(i))) i++;
      toks.push({ kind: 'ident', text: src.slice(s, i), start: s, end: i });
      continue;
    }
    if (isDigit(c)) {
      i++;
      while (i < n && (isDigit(src.charCodeAt(i)) || src.charCodeAt(i) === 95)) i++;
      if (i + 1 < n && src.charCodeAt(i) === 46 && isDigit(src.charCodeAt(i + 1))) {
        i += 2;
        while (i < n && (isDigit(src.charCodeAt(i)) || src.charCodeAt(i) === 95)) i++;
      }
      const digitsEnd = i;
      let unit = '';
      for (const u of UNIT_SUFFIXES) {
        if (src.startsWith(u, i)) {
          unit = u;
          break;
        }
      }
      i += unit.length;
      toks.push({ kind: 'number', text: src.slice(s, i), start: s, end: i, digits: src.slice(s, digitsEnd), unit });
      continue;
    }
    if (c === 35 /* # */) {
      i++;
      while (i < n && isHex(src.charCodeAt(i))) i++;
      if (i === s + 1) return err(s, s + 1, "syntax error: expected hex digits after '#'");
      toks.push({ kind: 'hex', text: src.slice(s, i), start: s, end: i });
      continue;
    }
    if (c === 34 /* " */) {
      if (src.startsWith('"""', i)) {
        const close = src.indexOf('"""', i + 3);
        if (close >= 0) {
          i = close + 3;
          toks.push({ kind: 'string', text: src.slice(s, i), start: s, end: i, raw: true });
          continue;
        }
      }
      i++;
      let closed = false;
      while (i < n) {
        const d = src.charCodeAt(i);
        if (d === 34) {
          i++;
          closed = true;
          break;
        }
        if (d === 92 /* \ */) {
          if (i + 1 >= n) break;
          if (src.charCodeAt(i + 1) === 10)
            return err(i, i + 2, 'syntax error: backslash before a line break in a string');
          i += 2;
          continue;
        }
        i++;
      }
      if (!closed) return err(s, Math.min(n, s + 1), 'syntax error: unterminated string literal');
      toks.push({ kind: 'string', text: src.slice(s, i), start: s, end: i, raw: false });
      continue;
    }
    const two = src.slice(i, i + 2);
    if (PUNCT2.includes(two)) {
      i += 2;
      toks.push({ kind: 'punct', text: two, start: s, end: i });
      continue;
    }
    if (PUNCT1.includes(src[i]!)) {
      i++;
      toks.push({ kind: 'punct', text: src[s]!, start: s, end: i });
      continue;
    }
    const cp = src.codePointAt(i)!;
    const w = cp > 0xffff ? 2 : 1;
    return err(s, s + w, `syntax error: unexpected character ${describeChar(String.fromCodePoint(cp))}`);
  }
  toks.push({ kind: 'eof', text: '', start: n, end: n });
  return toks;
}

/** Numeric value of a number token's digit text (underscores removed). */
export function numberValue(digits: string): number {
  return Number(digits.replace(/_/g, ''));
}
