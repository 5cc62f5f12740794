// Warnings from the stdlib table (stdlib-docs.ts) on what renders silently wrong: an unknown named argument of a
// library call (LIB001), a method that does not apply to its receiver's known type (LIB002), a call nothing draws
// (LIB003), a literal of the wrong type or unit for a parameter (LIB004), a glyph text that cmotion draws as written
// (escapes, raw-string quotes: LIB005), characters the one font has no outline for (LIB006). cmotion validates no
// library argument (language.md §6, stdlib.md §6.0) and renders all of these, so each is a warning and never refuses
// a source. A syntactic walk over the AST: a name bound anywhere in the file is never read as the library's, and a
// value's type is known only where the expression says it (a library call, a method chain on one, a `let` of one).
// No Node-only APIs: the editor bundles this module.

import type { Arg, Block, Expr, Program, Span } from './ast.js';
import type { Diagnostic, SourceMap } from './diagnostics.js';
import { levenshtein } from './checker.js';
import { missingGlyphs } from './font-coverage.js';
import { appliesTo, memberName, signature, STDLIB, stdEntry, type StdEntry, type StdParam } from './stdlib-docs.js';
import { suffixDimension, type Dimension } from './units.js';

/**
 * Argument names the reference's consumers read beyond the table's parameters (stdlib.md §6: aliases, and what the
 * native renderer reads), so a source using them is not told they are unknown.
 */
const ALIASES: Readonly<Record<string, readonly string[]>> = {
  rect: ['at'],
  sphere: ['radius'],
  path: ['closed', 'd'],
  'text.glyph': ['curve_segments'],
  extrude: ['bevel', 'bevel_segments'],
  vectorize: ['strokeWidth'],
  metaballs: ['blobs'],
  ambient: ['tint'],
  directional: ['tint'],
  point: ['position', 'tint'],
  spotlight: ['position', 'tint'],
  scale: ['x', 'y', 'z'],
  render3d: ['scene'],
  squash: ['factor'],
};

/** The types a receiver may have where the walk knows it: a method of none of them is never warned about. */
const KNOWN_TYPES: ReadonlySet<string> = new Set([
  'Layer',
  'Solid',
  'Image',
  'Outline',
  'Light',
  'Camera',
  'Blob',
  'Gradient',
  'Effect',
  'Vec2',
  'Vec3',
]);

/** What a numeric parameter's type accepts as a unit (none is always accepted: the consumer reads it in its unit). */
const NUMERIC: Readonly<Record<string, Dimension | null>> = {
  Length: 'Length',
  Angle: 'Angle',
  Duration: 'Time',
  Number: null,
};

const NOT_DRAWN = 'drawn by nothing here or in cmotion';

/** How many times each name is bound anywhere in the file (lets, parameters, patterns, declarations, imports). */
function collectBound(prog: Program): Map<string, number> {
  const counts = new Map<string, number>();
  const names = { add: (n: string) => counts.set(n, (counts.get(n) ?? 0) + 1) };
  const block = (b: Block) => b.lets.forEach((l) => names.add(l.name));
  const visit = (e: Expr): void => {
    if (e.k === 'block') block(e);
    if (e.k === 'lambda') e.params.forEach((p) => names.add(p.name));
    if (e.k === 'match') for (const a of e.arms) if (a.pattern.p === 'ident') names.add(a.pattern.name);
    if (e.k === 'if') block(e.then);
    forEachChild(e, visit);
  };
  for (const d of prog.decls) {
    if (d.d === 'import') {
      if (d.local) names.add(d.local);
      continue;
    }
    if (d.d === 'callable') {
      names.add(d.name);
      d.params.forEach((p) => names.add(p.name));
      d.params.forEach((p) => p.default && visit(p.default));
      visit(d.body);
      continue;
    }
    names.add(d.decl.name);
    visit(d.decl.value);
  }
  return counts;
}

function forEachChild(e: Expr, f: (c: Expr) => void): void {
  switch (e.k) {
    case 'colorfn':
      e.args.forEach(f);
      return;
    case 'paren':
      f(e.inner);
      return;
    case 'binary':
      f(e.left);
      f(e.right);
      return;
    case 'unary':
      f(e.operand);
      return;
    case 'call':
      f(e.callee);
      e.args.forEach((a) => f(a.value));
      return;
    case 'method':
      f(e.receiver);
      e.args.forEach((a) => f(a.value));
      return;
    case 'field':
      f(e.receiver);
      return;
    case 'index':
      f(e.receiver);
      f(e.index);
      return;
    case 'if':
      f(e.cond);
      f(e.then);
      if (e.else) f(e.else);
      return;
    case 'match':
      f(e.subject);
      for (const a of e.arms) {
        if (a.pattern.p === 'literal') f(a.pattern.lit);
        f(a.body);
      }
      return;
    case 'lambda':
      e.params.forEach((p) => p.default && f(p.default));
      f(e.body);
      return;
    case 'animate':
      e.keyframes.forEach((k) => {
        f(k.at);
        f(k.value);
      });
      e.opts?.forEach((o) => f(o.value));
      return;
    case 'compose':
      e.layers.forEach(f);
      return;
    case 'record':
      e.fields.forEach((x) => f(x.value));
      return;
    case 'array':
      e.elems.forEach(f);
      return;
    case 'block':
      e.lets.forEach((l) => f(l.value));
      f(e.result);
      return;
    default:
      return;
  }
}

/** The closest name within 2 edits (1 for a name of 3 letters or fewer), or null. */
function closest(name: string, candidates: readonly string[]): string | null {
  const max = name.length <= 3 ? 1 : 2;
  let best: string | null = null;
  let bestD = max + 1;
  for (const c of candidates) {
    const d = levenshtein(name.toLowerCase(), c.toLowerCase(), max);
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** What a literal argument is, for LIB004: `10s` (number with unit), `#fff` (colour), `"a"` (string), `true`. */
function literalOf(e: Expr): { what: 'number'; dim: Dimension | null; text: string } | { what: string } | null {
  const x = e.k === 'unary' && e.op === '-' ? e.operand : e;
  if (x.k === 'number') return { what: 'number', dim: x.unit ? suffixDimension(x.unit) : null, text: x.unit };
  if (x.k === 'hex' || x.k === 'colorfn') return { what: 'colour' };
  if (x.k === 'string') return { what: 'string' };
  if (x.k === 'bool') return { what: 'bool' };
  return null;
}

/** Why a literal does not fit a parameter's type, or null when it fits (or the walk cannot tell). */
function misfit(p: StdParam, value: Expr): string | null {
  const lit = literalOf(value);
  if (!lit) return null;
  const types = p.type.split(' | ');
  if (types.includes('Color')) return lit.what === 'colour' ? null : `a ${lit.what}`;
  const numeric = types.find((t) => t in NUMERIC);
  if (numeric) {
    if (lit.what !== 'number') return `a ${lit.what}`;
    const want = NUMERIC[numeric];
    const l = lit as { dim: Dimension | null; text: string };
    if (want && l.dim && l.dim !== want) return `a number in ${l.text} (${l.dim})`;
    return null;
  }
  if (types.includes('String')) return lit.what === 'string' ? null : `a ${lit.what}`;
  return null;
}

/** `a Layer`, `an Image`. */
const article = (word: string): string => `${/^[AEIOU]/i.test(word) ? 'an' : 'a'} ${word}`;

function expectedOf(p: StdParam): string {
  switch (p.type) {
    case 'Color':
      return 'a colour (#rrggbb, oklch(...))';
    case 'Color | Image':
      return 'a colour or an image(...)';
    case 'Angle':
      // the transforms read a plain number as radians; camera(fov:) as degrees
      return p.unit === 'rad' ? 'an Angle in deg (a plain number is radians)' : `an Angle in ${p.unit ?? 'deg'}`;
    case 'String':
      return 'a string';
    default:
      return `${article(p.type)}${p.unit && p.type !== 'Number' ? ` in ${p.unit}` : ''}`;
  }
}

/** What a method's table receiver means to a reader: the modifiers apply to layers too (appliesTo). */
const receiverText = (e: StdEntry): string =>
  e.receiver === 'Solid' ? 'a Layer or a Solid' : article(e.receiver ?? 'Node');

class Walk {
  readonly diags: Diagnostic[] = [];
  /** the types of names bound once, by a `let` of a library value */
  private letTypes = new Map<string, string>();

  constructor(
    private sm: SourceMap,
    private bound: ReadonlyMap<string, number>,
  ) {}

  private warn(span: Span, code: string, message: string, init: { help: string; expected?: string; actual?: string }) {
    this.diags.push(
      this.sm.diag(span.start, span.end, {
        code,
        severity: 'warning',
        message,
        ...init,
        fixSafety: 'local-edit',
        repair: { id: 'fix-library-call', summary: 'Change the call so the library reads what the source means.' },
      }),
    );
  }

  /** The library entry a callee names (an unbound name path such as `rect` or `text.glyph`), or undefined. */
  private calleeEntry(e: Expr): StdEntry | undefined {
    if (e.k === 'ident') return this.bound.has(e.name) ? undefined : stdEntry(e.name);
    if (e.k === 'field' && e.path && !this.bound.has(e.path.root)) return stdEntry(e.path.text);
    return undefined;
  }

  /** The type of an expression where the source says it, else null. */
  typeOf(e: Expr): string | null {
    switch (e.k) {
      case 'paren':
        return this.typeOf(e.inner);
      case 'block':
        return this.typeOf(e.result);
      case 'compose':
        return 'Layer';
      case 'ident':
        return this.letTypes.get(e.name) ?? null;
      case 'call': {
        const entry = this.calleeEntry(e.callee);
        return entry && entry.kind === 'function' && KNOWN_TYPES.has(entry.result) ? entry.result : null;
      }
      case 'method': {
        if (e.path && !this.bound.has(e.path.root)) {
          const entry = stdEntry(e.path.text);
          return entry && KNOWN_TYPES.has(entry.result) ? entry.result : null;
        }
        const recv = this.typeOf(e.receiver);
        const m = stdEntry(e.name);
        if (!recv || !m || m.kind !== 'method' || !appliesTo(m, recv)) return null;
        // the modifiers hand back what they were given: a rotated rect is still a flat layer
        return m.result === 'Image' ? 'Image' : recv;
      }
      default:
        return null;
    }
  }

  lets(name: string, value: Expr): void {
    if (this.bound.get(name) !== 1) return;
    const t = this.typeOf(value);
    if (t) this.letTypes.set(name, t);
  }

  expr(e: Expr): void {
    if (e.k === 'block') for (const l of e.lets) this.lets(l.name, l.value);
    if (e.k === 'call') {
      const entry = this.calleeEntry(e.callee);
      if (entry) this.libraryCall(entry, e.args, e.callee);
    }
    if (e.k === 'method') this.method(e);
    forEachChild(e, (c) => this.expr(c));
  }

  private method(e: Extract<Expr, { k: 'method' }>): void {
    if (e.path && !this.bound.has(e.path.root)) {
      // `text.glyph(...)`: a call of the dotted name, not a method
      const entry = stdEntry(e.path.text);
      if (entry) this.libraryCall(entry, e.args, e);
      return;
    }
    const entry = stdEntry(e.name);
    if (entry && !entry.implemented && entry.result === 'Node') {
      this.notDrawn(entry, e.nameSpan, `.${e.name}(...)`);
      return;
    }
    const recv = this.typeOf(e.receiver);
    if (entry?.kind === 'method') {
      if (recv && !appliesTo(entry, recv)) {
        this.warn(
          e.nameSpan,
          'LIB002',
          `method '${e.name}' does not apply to ${article(recv)}: it applies to ${receiverText(entry)}`,
          {
            help: `.${e.name}(...) on ${article(recv)} is drawn by nothing; ${this.methodsFor(recv)}`,
            expected: `a method of ${recv}`,
            actual: e.name,
          },
        );
        return;
      }
      this.libraryCall(entry, e.args, e);
      return;
    }
    if (!recv) return;
    const names = STDLIB.filter((m) => m.kind === 'method' && appliesTo(m, recv)).map(memberName);
    const guess = closest(e.name, names);
    this.warn(
      e.nameSpan,
      'LIB002',
      `unknown method '${e.name}' for ${article(recv)}${guess ? `; did you mean '${guess}'?` : ''}`,
      {
        help: `a method the library does not define is drawn by nothing; ${this.methodsFor(recv)}`,
        expected: guess ?? `a method of ${recv}`,
        actual: e.name,
      },
    );
  }

  private methodsFor(type: string): string {
    const names = STDLIB.filter((m) => m.kind === 'method' && appliesTo(m, type)).map((m) => `.${m.name}`);
    return names.length > 0 ? `${article(type)} has ${names.join(', ')}` : `${article(type)} has no methods`;
  }

  private notDrawn(entry: StdEntry, span: Span, written: string): void {
    this.warn(span, 'LIB003', `${written} is ${NOT_DRAWN}`, {
      help: `${entry.help} The call renders as an empty, invisible node.`,
      actual: entry.name,
    });
  }

  private libraryCall(entry: StdEntry, args: Arg[], callSpan: Span): void {
    if (!entry.implemented) {
      if (entry.result === 'Node') this.notDrawn(entry, callSpan, `${entry.name}(...)`);
      return;
    }
    const known = [...entry.params.map((p) => p.name), ...(ALIASES[entry.name] ?? [])];
    let positional = 0;
    for (const a of args) {
      let p: StdParam | undefined;
      if (a.name === null) {
        const i = positional++;
        p = entry.params.find((x) => x.position === i);
      } else if (!known.includes(a.name)) {
        const guess = closest(a.name, known);
        const span = { start: a.start, end: a.start + a.name.length };
        this.warn(
          span,
          'LIB001',
          `'${entry.name}' has no argument '${a.name}'${guess ? `; did you mean '${guess}'?` : ''}`,
          {
            help: `an argument the library does not read is ignored and the default applies: ${signature(entry)}`,
            expected: guess ?? known.join(', '),
            actual: a.name,
          },
        );
        continue;
      } else p = entry.params.find((x) => x.name === a.name);
      if (!p) continue;
      const bad = misfit(p, a.value);
      if (bad) {
        const span = a.value;
        this.warn(span, 'LIB004', `'${p.name}' of '${entry.name}' expects ${expectedOf(p)}, got ${bad}`, {
          help: `a value of the wrong type or unit is read as the default or in the wrong unit: ${signature(entry)}`,
          expected: expectedOf(p),
          actual: this.sm.text.slice(span.start, span.end),
        });
      }
      if (entry.name === 'text.glyph' && p.name === 'text') this.glyphText(a.value);
    }
  }

  private glyphText(value: Expr): void {
    if (value.k !== 'string') return;
    const body = value.triple ? value.raw.slice(3, -3) : value.raw.slice(1, -1);
    if (value.triple || body.includes('\\')) {
      const drawn = value.triple ? value.raw.slice(1, -1) : body;
      this.warn(value, 'LIB005', `this text draws as written: ${drawn}`, {
        help: value.triple
          ? 'one pair of quotes is stripped from a text, so a raw """...""" string draws two quotes on each side; write the text in plain quotes'
          : 'cmotion decodes no escape in a text: a backslash draws as a backslash. Keep quotes out of drawn text, or pass such data as a scene argument (issue "Scene arguments")',
        actual: drawn,
      });
    }
    const missing = missingGlyphs(body);
    if (missing.length > 0)
      this.warn(value, 'LIB006', `the font has no outline for ${missing.map((c) => JSON.stringify(c)).join(', ')}`, {
        help: 'text is drawn in DM Sans Bold (Latin, Latin-1 and Latin Extended, common punctuation); other characters draw as empty boxes',
        actual: missing.join(''),
      });
  }
}

/** The library warnings of a parsed program, in source order. */
export function libraryWarnings(prog: Program, sm: SourceMap): Diagnostic[] {
  const w = new Walk(sm, collectBound(prog));
  for (const d of prog.decls) {
    if (d.d === 'import') continue;
    if (d.d === 'callable') {
      d.params.forEach((p) => p.default && w.expr(p.default));
      w.expr(d.body);
      continue;
    }
    w.expr(d.decl.value);
    w.lets(d.decl.name, d.decl.value);
  }
  return w.diags.sort((a, b) => a.line - b.line || a.column - b.column);
}
