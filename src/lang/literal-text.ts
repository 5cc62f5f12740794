// An argument's text read as the language writes a literal, by the language's own lexer: one number literal with
// its unit (a leading `-` allowed), or one colour literal (`#rgb[a]`, `#rrggbb[aa]`, oklch/oklab/srgb of three
// number literals). Never an expression: anything more than the one literal is refused (null). scene-args.ts binds
// unit and colour arguments with these.
import { lex, numberValue, type Token } from './lexer.js';
import { unitTag } from './units.js';
import type { Value } from './value.js';

/** Reads `text` as one number literal (optionally negative) by the language's lexer; null when it is anything else. */
export function oneNumber(text: string): { value: number; suffix: string } | null {
  const toks = lex(text);
  let i = 0;
  let sign = 1;
  if (toks[0]?.kind === 'punct' && toks[0].text === '-' && toks[0].end === toks[1]?.start) {
    sign = -1;
    i = 1;
  }
  const t = toks[i];
  if (!t || t.kind !== 'number' || toks[i + 1]?.kind !== 'eof' || t.start !== i || t.end !== text.length) return null;
  const value = sign * numberValue(t.digits!);
  return Number.isFinite(value) ? { value, suffix: t.unit! } : null;
}

const HEX = /^[0-9a-fA-F]+$/;
const HEX_LENGTHS = new Set([3, 4, 6, 8]);

/** Reads `text` as one colour literal: `#rgb[a]`, `#rrggbb[aa]`, or oklch/oklab/srgb of three number literals. */
export function oneColor(text: string): Value | null {
  const toks = lex(text);
  const last = toks[toks.length - 1]!;
  if (toks.some((t) => t.kind === 'error') || last.kind !== 'eof') return null;
  const body = toks.slice(0, -1);
  if (body.length === 1 && body[0]!.kind === 'hex') {
    const digits = body[0]!.text.slice(1);
    if (!HEX.test(digits) || !HEX_LENGTHS.has(digits.length) || body[0]!.start !== 0 || body[0]!.end !== text.length)
      return null;
    return { kind: 'color', form: 'hex', digits };
  }
  const head = body[0];
  if (!head || head.kind !== 'ident' || !['oklch', 'oklab', 'srgb'].includes(head.text)) return null;
  const nums: Value[] = [];
  let i = 1;
  const punct = (t: Token | undefined, p: string) => t?.kind === 'punct' && t.text === p;
  if (!punct(body[i++], '(')) return null;
  for (let k = 0; k < 3; k++) {
    let sign = 1;
    if (punct(body[i], '-')) {
      sign = -1;
      i++;
    }
    const n = body[i++];
    if (!n || n.kind !== 'number') return null;
    nums.push({ kind: 'number', value: sign * numberValue(n.digits!), unit: unitTag(n.unit!) });
    if (k < 2 && !punct(body[i++], ',')) return null;
  }
  if (punct(body[i], ',')) i++;
  if (!punct(body[i++], ')') || i !== body.length) return null;
  const [a, b, c] = nums as [Value, Value, Value];
  if (head.text === 'oklch') return { kind: 'color', form: 'oklch', l: a, c: b, h: c };
  if (head.text === 'oklab') return { kind: 'color', form: 'oklab', l: a, a: b, b: c };
  return { kind: 'color', form: 'srgb', r: a, g: b, b: c };
}
