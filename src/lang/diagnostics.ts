// Diagnostics: the one shape, positions in bytes, the JSON envelope (language.md §7).
// No Node-only APIs: this module runs in the browser too.

export type Severity = 'error' | 'warning' | 'note';
export type FixSafety = 'format-only' | 'behavior-preserving' | 'local-edit' | 'api-changing' | 'requires-human-review';

export interface Repair {
  id: string;
  summary: string;
}

/** Keys are created in the order of language.md §7.1. */
export interface Diagnostic {
  severity: Severity;
  code: string;
  message: string;
  /** 1-based line; only LF starts a line. */
  line: number;
  /** 1-based column counted in UTF-8 bytes from the line start. */
  column: number;
  /** span length in UTF-8 bytes. */
  length: number;
  expected?: string;
  actual?: string;
  help: string;
  fixSafety: FixSafety;
  repair: Repair;
  related: Diagnostic[];
}

export interface Envelope {
  schemaVersion: 1;
  ok: boolean;
  diagnostics: Diagnostic[];
}

export interface DiagInit {
  code: string;
  message: string;
  severity?: Severity;
  expected?: string;
  actual?: string;
  help?: string;
  fixSafety?: FixSafety;
  repair?: Repair;
}

export const MANUAL_REPAIR: Repair = {
  id: 'manual-review',
  summary: 'Inspect the diagnostic fields and choose a repair manually.',
};

function utf8Len(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < to) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** Maps UTF-16 offsets of one source text to line / byte-column positions. */
export class SourceMap {
  private lineStarts: number[] = [0];
  constructor(readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }
  /** 1-based line and byte column of an offset. */
  position(offset: number): { line: number; column: number } {
    const o = Math.max(0, Math.min(offset, this.text.length));
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid]! <= o) lo = mid;
      else hi = mid - 1;
    }
    const start = this.lineStarts[lo]!;
    return { line: lo + 1, column: utf8Len(this.text, start, o) + 1 };
  }
  byteLength(start: number, end: number): number {
    const s = Math.max(0, Math.min(start, this.text.length));
    const e = Math.max(s, Math.min(end, this.text.length));
    return utf8Len(this.text, s, e);
  }
  diag(start: number, end: number, init: DiagInit): Diagnostic {
    const { line, column } = this.position(start);
    const d: Diagnostic = {
      severity: init.severity ?? 'error',
      code: init.code,
      message: init.message,
      line,
      column,
      length: this.byteLength(start, end),
    } as Diagnostic;
    if (init.expected !== undefined) d.expected = init.expected;
    if (init.actual !== undefined) d.actual = init.actual;
    d.help = init.help ?? '';
    d.fixSafety = init.fixSafety ?? 'requires-human-review';
    d.repair = init.repair ?? MANUAL_REPAIR;
    d.related = [];
    return d;
  }
}

export function hasErrors(diags: readonly Diagnostic[]): boolean {
  return diags.some((d) => d.severity === 'error');
}

export function envelope(diags: Diagnostic[]): Envelope {
  return { schemaVersion: 1, ok: !hasErrors(diags), diagnostics: diags };
}

/** The service's job `message`: `CODE text at line L, column C`. */
export function formatJobMessage(d: Diagnostic): string {
  return `${d.code} ${d.message} at line ${d.line}, column ${d.column}`;
}

/** Plain-text form used by the CLI (language.md §7.1, adapted to our tool name). */
export function formatHuman(d: Diagnostic, path: string): string {
  const lines = [`${d.severity}[${d.code}]: ${d.message}`, `  ${path}:${d.line}:${d.column}`];
  if (d.expected) lines.push(`  expected: ${d.expected}`);
  if (d.actual) lines.push(`  actual:   ${d.actual}`);
  if (d.help) lines.push(`  help:     ${d.help}`);
  lines.push(`  fix:      ${d.repair.summary} (${d.fixSafety})`);
  return lines.join('\n');
}
