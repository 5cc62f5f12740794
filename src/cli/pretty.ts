// Diagnostics for people at a terminal, in the shape compilers use:
//
//   scene.cm:3:20: error[TYP002]: expected Number, found String
//     |
//   3 |   let x: Number = "a";
//     |                   ^^^
//     = help: …
//
// Diagnostic columns and lengths count UTF-8 bytes (language.md §7.2, src/lang/diagnostics.ts); a terminal
// shows characters, so the caret is placed by walking the line's code points and adding up their UTF-8 sizes; the
// padding before it is as wide on screen as the text above it (tabs kept, East Asian wide characters two cells).
import type { Diagnostic, Severity } from '../lang/index.js';

/** ANSI styles, or none: colour only helps on a terminal, and NO_COLOR turns it off (no-color.org). */
export interface Style {
  severity(s: Severity, text: string): string;
  gutter(text: string): string;
  bold(text: string): string;
}

const wrap = (open: string, text: string) => `\x1b[${open}m${text}\x1b[0m`;
const SEVERITY_COLOUR: Record<Severity, string> = { error: '1;31', warning: '1;33', note: '1;36' };

export const plain: Style = { severity: (_s, t) => t, gutter: (t) => t, bold: (t) => t };
export const ansi: Style = {
  severity: (s, t) => wrap(SEVERITY_COLOUR[s], t),
  gutter: (t) => wrap('1;34', t),
  bold: (t) => wrap('1', t),
};

/** Colour when the stream is a terminal and NO_COLOR is unset or empty. */
export function useColour(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return stream.isTTY === true && !env.NO_COLOR;
}

const utf8Size = (cp: number) => (cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4);

/** East Asian wide and fullwidth characters (and emoji) take two terminal cells; the caret pads for them. */
function isWide(cp: number): boolean {
  return (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf && cp !== 0x303f) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  );
}

/** Blank padding as wide on screen as `text`: tabs kept (so they line up however wide a tab is drawn), wide characters as two spaces. */
export function padFor(text: string): string {
  let out = '';
  for (const ch of text) out += ch === '\t' ? '\t' : isWide(ch.codePointAt(0)!) ? '  ' : ' ';
  return out;
}

/** Terminal cells the characters take. */
const cells = (chars: string[]) => chars.reduce((n, ch) => n + (isWide(ch.codePointAt(0)!) ? 2 : 1), 0);

/**
 * Where a byte span of one line falls in its characters: `before` is the text left of the span, `width` how many
 * terminal cells the span covers on this line (a wide character counts two; at least 1, so an empty span or one at
 * the end of the line still gets a caret).
 */
export function spanOnLine(line: string, column: number, length: number): { before: string; width: number } {
  const chars = Array.from(line);
  let bytes = 0;
  let i = 0;
  while (i < chars.length && bytes < column - 1) bytes += utf8Size(chars[i++]!.codePointAt(0)!);
  const before = chars.slice(0, i).join('');
  let width = 0;
  let spanBytes = 0;
  while (i + width < chars.length && spanBytes < length) spanBytes += utf8Size(chars[i + width++]!.codePointAt(0)!);
  return { before, width: Math.max(1, cells(chars.slice(i, i + width))) };
}

/** One diagnostic: the location line, the source line with the span underlined, then expected/actual, help, fix. */
export function formatDiagnostic(d: Diagnostic, source: string, path: string, style: Style = plain): string {
  const head = `${style.bold(`${path}:${d.line}:${d.column}:`)} ${style.severity(d.severity, `${d.severity}[${d.code}]`)}${style.bold(`: ${d.message}`)}`;
  const out = [head];
  const text = source.split('\n')[d.line - 1];
  const num = String(d.line);
  const pad = ' '.repeat(num.length);
  if (text !== undefined) {
    const line = text.replace(/\r$/, '');
    const { before, width } = spanOnLine(line, d.column, d.length);
    const lead = padFor(before);
    out.push(`${pad} ${style.gutter('|')}`);
    out.push(`${style.gutter(`${num} |`)} ${line}`);
    out.push(`${pad} ${style.gutter('|')} ${lead}${style.severity(d.severity, '^'.repeat(width))}`);
  }
  const note = (label: string, body: string) => out.push(`${pad} ${style.gutter('=')} ${style.bold(label)}: ${body}`);
  if (d.expected !== undefined || d.actual !== undefined)
    note('note', `expected ${d.expected ?? '?'}, found ${d.actual ?? '?'}`);
  if (d.help) note('help', d.help);
  if (d.repair.id !== 'manual-review') note('fix', `${d.repair.summary} (${d.fixSafety})`);
  for (const r of d.related) note('note', `${path}:${r.line}:${r.column}: ${r.message}`);
  return out.join('\n');
}

/** The closing count: "2 errors", "1 error, 1 warning"; empty when there is nothing to count. */
export function formatCount(diags: readonly Diagnostic[]): string {
  const n = (s: Severity) => diags.filter((d) => d.severity === s).length;
  const parts: string[] = [];
  for (const s of ['error', 'warning', 'note'] as const)
    if (n(s) > 0) parts.push(`${n(s)} ${s}${n(s) === 1 ? '' : 's'}`);
  return parts.join(', ');
}
