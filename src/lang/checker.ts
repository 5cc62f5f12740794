// Static checks (language.md §6, §7.3, §8.1 order) plus our runner-feature check RUN002. Where cmotion renders what we
// would flag (docs/compatibility.md, "Our checks and whether they can refuse a source"), the finding is a warning:
// an unknown name given as an argument in a file with a glob import is the inert value cmotion makes of it
// (language.md §4.3, §4.4), and a function newer than the pin is drawn by the reference's one runner anyway.

import type { Block, Expr, LetDecl, Param, Program, Span, Type } from './ast.js';
import type { Diagnostic, SourceMap } from './diagnostics.js';
import { STDLIB_NAMES } from './stdlib.js';
import { atLeast, featureSince, functionSince } from './runners.js';
import { CANONICAL_SUFFIX, NUMBER_TYPES, suffixDimension } from './units.js';

export function levenshtein(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

interface BlockFrame {
  lets: LetDecl[];
  cur: number;
}

export class Checker {
  readonly diags: Diagnostic[] = [];
  private top = new Map<string, Span>();
  private scopes: Set<string>[] = [];
  private blocks: BlockFrame[] = [];
  /** a glob import anywhere: cmotion's checker reports no unknown or forward name in this file (language.md §4.3) */
  private glob = false;

  constructor(
    private sm: SourceMap,
    /** the pinned runner version when the pin is a known version, else null (no RUN002 checks) */
    private pin: string | null,
  ) {}

  private pos(span: Span): string {
    const p = this.sm.position(span.start);
    return `line ${p.line} column ${p.column}`;
  }

  run(prog: Program): Diagnostic[] {
    this.glob = prog.decls.some((d) => d.d === 'import' && d.glob);
    // pass 1: duplicates
    for (const d of prog.decls) {
      let name: string | null = null;
      let span: Span;
      let nameSpan: Span;
      if (d.d === 'import') {
        name = d.local;
        span = d;
        nameSpan = d;
      } else if (d.d === 'callable') {
        name = d.name;
        span = d.nameSpan;
        nameSpan = d.nameSpan;
      } else {
        name = d.decl.name;
        span = d.decl.nameSpan;
        nameSpan = d.decl.nameSpan;
      }
      if (name === null) continue;
      const prev = this.top.get(name);
      if (prev) {
        this.diags.push(
          this.sm.diag(span.start, span.end, {
            code: 'NAM005',
            message: `duplicate top-level declaration '${name}'`,
            expected: 'exactly one declaration per top-level name',
            actual: `name '${name}' previously declared at ${this.pos(prev)}`,
            help: 'rename one of the declarations, or remove the duplicate',
            fixSafety: 'api-changing',
            repair: { id: 'rename-duplicate', summary: 'Pick a unique name for this declaration.' },
          }),
        );
      } else this.top.set(name, d.d === 'import' ? d : nameSpan);
    }
    // pass 2
    for (const d of prog.decls) {
      if (d.d === 'let' || d.d === 'export') {
        this.expr(d.decl.value);
        this.annotation(d.decl.type, d.decl.value);
      } else if (d.d === 'callable') {
        this.params(d.params, false);
        this.scopes.push(new Set(d.params.map((p) => p.name)));
        this.block(d.body);
        this.scopes.pop();
      }
    }
    return this.diags;
  }

  /**
   * NAM006 and each default's walk. A lambda's default sees the parameters before it, as the evaluator binds them
   * (language.md §6.1, the warning under "Callable scope"; §9.2); a component's or scene's default sees only the
   * enclosing scope, as cmotion evaluates it there (§9.1), so naming an earlier parameter stays NAM003.
   */
  private params(params: Param[], earlierVisible: boolean): void {
    const seen = new Map<string, Span>();
    const earlier = new Set<string>();
    if (earlierVisible) this.scopes.push(earlier);
    for (const p of params) {
      const prev = seen.get(p.name);
      if (prev) {
        this.diags.push(
          this.sm.diag(p.nameSpan.start, p.nameSpan.end, {
            code: 'NAM006',
            message: `duplicate parameter name '${p.name}'`,
            expected: 'each parameter name appears once in a signature',
            actual: `name '${p.name}' already used at ${this.pos(prev)}`,
            help: 'rename this parameter',
            fixSafety: 'api-changing',
            repair: {
              id: 'rename-duplicate-param',
              summary: 'Give this parameter a unique name within the signature.',
            },
          }),
        );
      } else seen.set(p.name, p.nameSpan);
      if (p.default) {
        this.expr(p.default);
        this.annotation(p.type, p.default);
      }
      earlier.add(p.name);
    }
    if (earlierVisible) this.scopes.pop();
  }

  private block(b: Block): void {
    const scope = new Set<string>();
    this.scopes.push(scope);
    const frame: BlockFrame = { lets: b.lets, cur: 0 };
    this.blocks.push(frame);
    for (let i = 0; i < b.lets.length; i++) {
      frame.cur = i;
      const l = b.lets[i]!;
      this.expr(l.value);
      this.annotation(l.type, l.value);
      scope.add(l.name);
    }
    frame.cur = b.lets.length;
    this.expr(b.result);
    this.blocks.pop();
    this.scopes.pop();
  }

  /** true when `name` is local (any scope) or top-level */
  private isDeclared(name: string): boolean {
    for (let i = this.scopes.length - 1; i >= 0; i--) if (this.scopes[i]!.has(name)) return true;
    return this.top.has(name);
  }

  private suggest(name: string): string | null {
    // names of one or two characters get no suggestion (every other short name is "close")
    if (name.length <= 2) return null;
    const max = name.length <= 4 ? 1 : 2;
    let best: string | null = null;
    let bestD = max + 1;
    const consider = (c: string) => {
      if (c === name || c.length <= 1) return;
      const d = levenshtein(name, c, max);
      if (d < bestD) {
        bestD = d;
        best = c;
      }
    };
    for (let i = this.scopes.length - 1; i >= 0; i--) for (const c of this.scopes[i]!) consider(c);
    for (const c of this.top.keys()) consider(c);
    for (const c of STDLIB_NAMES) consider(c);
    return best;
  }

  /**
   * NAM004 / NAM003 for a name that is not visible. `inert`: the name is given directly as an argument, where the
   * reference evaluates it to a staged value with no fields and a renderer ignores what it does not know (§4.4,
   * viewer.md: `pivot(middle)` shifts nothing); with a glob import cmotion reports nothing there and draws it, so
   * ours is a warning. A name that would itself be drawn or called (a layer, a callee) stays an error: the shared
   * examples' errors/ (unknown-ident.cm, unknown-function.cm, forward-ref.cm) must fail the job.
   */
  private ident(name: string, span: Span, inert = false): void {
    if (this.isDeclared(name) || STDLIB_NAMES.has(name)) return;
    const severity = inert && this.glob ? 'warning' : 'error';
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const f = this.blocks[i]!;
      for (let j = f.cur + 1; j < f.lets.length; j++) {
        const l = f.lets[j]!;
        if (l.name === name) {
          this.diags.push(
            this.sm.diag(span.start, span.end, {
              code: 'NAM004',
              severity,
              message: `forward reference to '${name}'`,
              expected: 'names declared earlier in the enclosing block',
              actual: `'${name}' is declared later in this block at ${this.pos(l.nameSpan)}`,
              help: 'move the declaration above this use, or hoist it to an enclosing scope',
              fixSafety: 'local-edit',
              repair: {
                id: 'reorder-block-let',
                summary: 'Place the `let` declaration above the use, or move it to an outer scope.',
              },
            }),
          );
          return;
        }
      }
    }
    const s = this.suggest(name);
    const hint = s ? `did you mean '${s}'? ` : '';
    this.diags.push(
      this.sm.diag(span.start, span.end, {
        code: 'NAM003',
        severity,
        message: `unknown identifier '${name}'` + (s ? `; did you mean '${s}'?` : ''),
        expected: 'visible local, parameter, top-level declaration, or imported name',
        actual: `no visible symbol named '${name}'`,
        help:
          severity === 'warning'
            ? `${hint}it is drawn as an inert value, which the renderer ignores (as cmotion does under a glob import)`
            : `${hint}declare the name before using it, or import the module that exports it`,
        fixSafety: 'local-edit',
        repair: { id: 'declare-or-import', summary: 'Add a let-binding or `use ...` for this name.' },
      }),
    );
  }

  private runnerCheck(name: string, span: Span): void {
    if (!this.pin) return;
    const since = functionSince(name);
    if (since && !atLeast(this.pin, since)) {
      this.diags.push(
        this.sm.diag(span.start, span.end, {
          code: 'RUN002',
          severity: 'warning',
          message: `${name}() needs runner ${since} or later; this source pins ${this.pin}`,
          expected: `runner ${since} or later`,
          actual: `runner ${this.pin}`,
          help: `pin runner "${since}" or later, or remove the call`,
          fixSafety: 'requires-human-review',
          repair: { id: 'raise-runner-pin', summary: `Raise the runner pin to ${since} or later.` },
        }),
      );
    }
  }

  private expr(e: Expr): void {
    switch (e.k) {
      case 'number':
      case 'bool':
      case 'hex':
        return;
      case 'string':
        if (e.triple && this.pin) {
          const since = featureSince('raw-strings')!;
          if (!atLeast(this.pin, since))
            this.diags.push(
              this.sm.diag(e.start, e.end, {
                code: 'RUN002',
                severity: 'warning',
                message: `raw strings ("""...""") need runner ${since} or later; this source pins ${this.pin}`,
                expected: `runner ${since} or later`,
                actual: `runner ${this.pin}`,
                help: `pin runner "${since}" or later, or use a normal "..." string`,
                fixSafety: 'requires-human-review',
                repair: { id: 'raise-runner-pin', summary: `Raise the runner pin to ${since} or later.` },
              }),
            );
        }
        return;
      case 'colorfn':
        for (const a of e.args) this.expr(a);
        return;
      case 'ident':
        this.ident(e.name, e);
        return;
      case 'paren':
        this.expr(e.inner);
        return;
      case 'binary':
        this.expr(e.left);
        this.expr(e.right);
        return;
      case 'unary':
        this.expr(e.operand);
        return;
      case 'call': {
        this.expr(e.callee);
        this.args(e.args);
        if (e.callee.k === 'ident') {
          const name = e.callee.name;
          if (!this.isDeclared(name)) this.runnerCheck(name, e.callee);
          if (name === 'extrude') this.extrudeCheck(e);
          else if (name === 'path') this.pathCheck(e);
        }
        return;
      }
      case 'method':
        this.expr(e.receiver);
        this.args(e.args);
        return;
      case 'field':
        this.expr(e.receiver);
        return;
      case 'index':
        this.expr(e.receiver);
        this.expr(e.index);
        return;
      case 'if':
        this.expr(e.cond);
        this.block(e.then);
        if (e.else) this.expr(e.else);
        return;
      case 'match':
        this.expr(e.subject);
        for (const arm of e.arms) {
          if (arm.pattern.p === 'literal') this.expr(arm.pattern.lit);
          if (arm.pattern.p === 'ident') {
            this.scopes.push(new Set([arm.pattern.name]));
            this.expr(arm.body);
            this.scopes.pop();
          } else this.expr(arm.body);
        }
        return;
      case 'lambda':
        this.params(e.params, true);
        this.scopes.push(new Set(e.params.map((p) => p.name)));
        this.block(e.body);
        this.scopes.pop();
        return;
      case 'animate':
        for (const kf of e.keyframes) {
          this.expr(kf.at);
          this.expr(kf.value);
        }
        if (e.opts) for (const o of e.opts) this.expr(o.value);
        return;
      case 'compose':
        for (const l of e.layers) this.expr(l);
        return;
      case 'record':
        for (const f of e.fields) this.expr(f.value);
        return;
      case 'array':
        for (const x of e.elems) this.expr(x);
        return;
      case 'block':
        this.block(e);
        return;
    }
  }

  /** a call's or method's arguments; a bare name as an argument is an inert use (see ident) */
  private args(args: readonly { value: Expr }[]): void {
    for (const a of args) {
      if (a.value.k === 'ident') this.ident(a.value.name, a.value, true);
      else this.expr(a.value);
    }
  }

  private extrudeCheck(e: Extract<Expr, { k: 'call' }>): void {
    const first = e.args.find((a) => a.name === null);
    if (!first) return;
    const v = first.value;
    if (v.k === 'call' && v.callee.k === 'ident' && v.callee.name !== 'path') {
      const shape = v.callee.name;
      this.diags.push(
        this.sm.diag(v.start, v.end, {
          code: 'NAM007',
          message: `no 3D shape translator for '${shape}' inside extrude(...)`,
          expected: 'text.glyph(...) or path(...)',
          actual: `extrude received '${shape}'`,
          help: 'extrude a font outline with text.glyph(...) or an explicit polygon with path(points: [...])',
          fixSafety: 'requires-human-review',
          repair: {
            id: 'use-extrudable-shape',
            summary: 'Pass a text.glyph(...) or path(...) to extrude \u2014 other shapes have no 3D form yet.',
          },
        }),
      );
    }
  }

  private pathCheck(e: Extract<Expr, { k: 'call' }>): void {
    const lwr = (message: string) =>
      this.diags.push(
        this.sm.diag(e.start, e.end, {
          code: 'LWR001',
          message,
          expected: 'path(points: [vec2(x, y), \u2026]) with 3+ points, closed',
          help: 'give the path 3 or more points and leave it closed (the default) so extrude has a face',
          fixSafety: 'requires-human-review',
          repair: { id: 'close-path-min-points', summary: 'Provide at least 3 points and keep the path closed.' },
        }),
      );
    if (e.args.some((a) => a.name === 'closed' && a.value.k === 'bool' && a.value.value === false)) {
      lwr('an open path (closed: false) has no cap face to extrude');
      return;
    }
    for (const a of e.args) {
      if (a.value.k !== 'array') continue;
      if (a.name === 'points' || a.name === null) {
        if (a.value.elems.length < 3) lwr('a path needs at least 3 points to extrude into a solid');
        return;
      }
    }
  }

  private annotation(type: Type | null, value: Expr): void {
    if (!type || type.t !== 'simple') return;
    const T = type.name;
    let want: string | null = null;
    if (T === 'String') want = 'string';
    else if (T === 'Bool') want = 'bool';
    else if (T === 'Color') want = 'color';
    else if (NUMBER_TYPES.has(T)) want = 'number';
    if (!want) return;
    let got: string | null = null;
    if (value.k === 'number') got = 'number';
    else if (value.k === 'string') got = 'string';
    else if (value.k === 'bool') got = 'bool';
    else if (value.k === 'hex' || value.k === 'colorfn') got = 'color';
    if (!got) return;
    if (got !== want) {
      this.diags.push(
        this.sm.diag(value.start, value.end, {
          code: 'TYP002',
          message: `type mismatch: expected '${T}', got a ${got} literal`,
          expected: `${T} value`,
          actual: `${got} literal`,
          help: 'change the value to match the type, or change the type annotation to match the value',
          fixSafety: 'local-edit',
          repair: { id: 'align-value-with-type', summary: 'Use a value whose category matches the annotation.' },
        }),
      );
      return;
    }
    if (want !== 'number' || value.k !== 'number') return;
    const cat = NUMBER_TYPES.get(T) ?? 'unitless';
    const u = value.unit;
    if (u) {
      const act = suffixDimension(u)!;
      if (act !== cat) {
        this.diags.push(
          this.sm.diag(value.start, value.end, {
            code: 'UNT001',
            message: `unit mismatch: '${T}' expects ${cat}, got '${value.digits}${u}' (${act})`,
            expected: `a ${cat} literal (annotated as ${T})`,
            actual: `a ${act} literal ('${u}')`,
            help: 'change the unit suffix to match the annotated category, or change the annotation',
            fixSafety: 'local-edit',
            repair: {
              id: 'align-unit-with-type',
              summary: 'Use a literal whose unit lives in the annotated category.',
            },
          }),
        );
      }
    } else if (cat !== 'unitless') {
      const canon = CANONICAL_SUFFIX[cat];
      this.diags.push(
        this.sm.diag(value.start, value.end, {
          code: 'UNT002',
          message: `missing unit: '${T}' requires a ${cat} unit (e.g. '${value.digits}${canon}')`,
          expected: `a ${cat} literal (annotated as ${T})`,
          actual: 'a unitless literal',
          help: `add a unit suffix from the ${cat} category (suggested: '${canon}')`,
          fixSafety: 'local-edit',
          repair: {
            id: 'add-required-unit',
            summary: `Append a unit suffix from the ${cat} category (suggested: '${value.digits}${canon}').`,
          },
        }),
      );
    }
  }
}
