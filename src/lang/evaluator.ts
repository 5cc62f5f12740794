// Per-frame evaluator: the walk over the AST. The whole program is evaluated at time t (seconds)
// and every time signal (animate, wave, bounce, on_event, noise) resolves to its value at t while
// evaluating, so arithmetic on animated values works. Semantics otherwise follow stdlib.md §3-§4;
// deliberate differences are listed in docs/compatibility.md. What each operation computes lives
// beside it: value-ops.ts (operators, equality, access), signals/ (time), units.ts, limits.ts.

import type { Block, Expr, NamePath, Program, Span, TopDecl } from './ast.js';
import type { Diagnostic, SourceMap } from './diagnostics.js';
import { Abort, EvalFailure } from './eval-failure.js';
import { MAX_CALL_DEPTH, MAX_EVAL_DEPTH, STEP_BUDGET } from './limits.js';
import { bind, closures, lookup, type Env } from './scope.js';
import {
  SignalValues,
  animateAt,
  animateNode,
  bounceAt,
  noiseAt,
  onEventAt,
  shallowCopy,
  signalField,
  waveAt,
  type Keyframe,
} from './signals/index.js';
import { NIL, type Field, type Value } from './value.js';
import { binaryOp, equal, fieldAccess, indexAccess, unaryOp, type OpResult } from './value-ops.js';

export interface Binding {
  name: string;
  decl: TopDecl;
  value: Value;
  /** for callables: parameter values (used to read the scene's `duration` default) */
  params?: Map<string, Value>;
}

export interface EvalResult {
  bindings: Binding[];
  diagnostics: Diagnostic[];
}

type E<K extends Expr['k']> = Extract<Expr, { k: K }>;

const RECURSION_HELP = 'remove unbounded recursion (such as a lambda applied to itself)';

export class Evaluator {
  private diags: Diagnostic[] = [];
  private steps = 0;
  private depth = 0;
  private calls = 0;
  private signals = new SignalValues();
  readonly t: number;
  /** set once any time signal is resolved: an evaluation that never reads t gives the same value at every t */
  usedTime = false;
  /**
   * When set (compile's one evaluation, never a frame's), an operator applied to a time signal's own value is noted
   * in `warnings` as ANI001: cmotion's runner refuses such a source (stdlib.md §1), we render it.
   */
  warnAnimated = false;
  readonly warnings: Diagnostic[] = [];

  /** steps taken so far (each counts against STEP_BUDGET): what one evaluation cost, for a job's admission */
  get stepsTaken(): number {
    return this.steps;
  }

  constructor(
    private sm: SourceMap,
    t: number,
  ) {
    // stdlib.md §4.1: time floored to whole nanoseconds
    this.t = Number.isFinite(t) ? Math.floor(t * 1e9) / 1e9 : 0;
  }

  /** Reports a failed operation at `span`; its value is nil (stdlib.md §3.10). */
  private fail(span: Span, f: EvalFailure): Value {
    this.diags.push(f.toDiagnostic(this.sm, span));
    return NIL;
  }

  private result(span: Span, r: OpResult): Value {
    return r instanceof EvalFailure ? this.fail(span, r) : r;
  }

  /**
   * Evaluates every top-level declaration. `args`: the rendered scene's arguments (scene-args.ts), bound in place of
   * its defaults; that scene is evaluated even when it has required parameters (the arguments give them).
   */
  run(prog: Program, args?: { decl: TopDecl; values: ReadonlyMap<string, Value> }): EvalResult {
    const bindings: Binding[] = [];
    let env: Env | null = null;
    try {
      for (const d of prog.decls) {
        if (d.d === 'import') continue;
        if (d.d === 'let' || d.d === 'export') {
          const v = this.expr(d.decl.value, env);
          env = bind(env, d.decl.name, v);
          bindings.push({ name: d.decl.name, decl: d, value: v });
          continue;
        }
        const given = args?.decl === d ? args.values : undefined;
        if (d.params.some((p) => !p.default && !given?.has(p.name))) continue;
        let scope: Env | null = env;
        const params = new Map<string, Value>();
        for (const p of d.params) {
          const v = given?.get(p.name) ?? this.expr(p.default!, env);
          params.set(p.name, v);
          scope = bind(scope, p.name, v);
        }
        const v = this.block(d.body, scope);
        env = bind(env, d.name, v);
        bindings.push({ name: d.name, decl: d, value: v, params });
      }
    } catch (e) {
      if (e instanceof Abort) return { bindings, diagnostics: [...this.diags, e.diag] };
      if (e instanceof RangeError) {
        // stack exhaustion despite the depth limit (should not happen): report it, never throw
        const d = this.sm.diag(0, 0, {
          code: 'EVL007',
          message: 'evaluation nested too deeply',
          help: 'reduce nesting or recursion in the source',
        });
        return { bindings, diagnostics: [...this.diags, d] };
      }
      throw e;
    }
    return { bindings, diagnostics: this.diags };
  }

  private block(b: Block, env: Env | null): Value {
    let scope = env;
    for (const l of b.lets) scope = bind(scope, l.name, this.expr(l.value, scope));
    return this.expr(b.result, scope);
  }

  /** dotted name when `e` is a name path rooted at an unbound identifier (stdlib.md §3.3) */
  private namePath(e: Expr, env: Env | null): string | null {
    if (e.k === 'ident') return lookup(env, e.name) === undefined ? e.name : null;
    if (e.k === 'field') return this.unboundPath(e.path, env);
    return null;
  }

  private unboundPath(path: NamePath | null, env: Env | null): string | null {
    return path !== null && lookup(env, path.root) === undefined ? path.text : null;
  }

  expr(e: Expr, env: Env | null): Value {
    if (++this.steps > STEP_BUDGET)
      throw Abort.at(
        this.sm,
        e,
        'EVL006',
        `evaluation step budget exceeded (${STEP_BUDGET} steps)`,
        'the source does too much work per frame; remove runaway recursion or very large repetitions',
      );
    if (++this.depth > MAX_EVAL_DEPTH)
      throw Abort.at(this.sm, e, 'EVL007', `evaluation nested deeper than ${MAX_EVAL_DEPTH} levels`, RECURSION_HELP);
    try {
      return this.exprInner(e, env);
    } finally {
      this.depth--;
    }
  }

  private exprInner(e: Expr, env: Env | null): Value {
    switch (e.k) {
      case 'number':
        return { kind: 'number', value: e.value, unit: e.tag };
      case 'string':
        return { kind: 'string', raw: e.raw };
      case 'bool':
        return { kind: 'bool', value: e.value };
      case 'hex':
        return { kind: 'color', form: 'hex', digits: e.digits };
      case 'colorfn': {
        const [a, b, c] = e.args.map((x) => this.expr(x, env)) as [Value, Value, Value];
        if (e.form === 'oklch') return { kind: 'color', form: 'oklch', l: a, c: b, h: c };
        if (e.form === 'oklab') return { kind: 'color', form: 'oklab', l: a, a: b, b: c };
        return { kind: 'color', form: 'srgb', r: a, g: b, b: c };
      }
      case 'ident': {
        const v = lookup(env, e.name);
        return v ?? { kind: 'constructed', name: e.name, fields: [] };
      }
      case 'paren':
        return this.expr(e.inner, env);
      case 'block':
        return this.block(e, env);
      case 'array': {
        const elems: Value[] = new Array(e.elems.length);
        for (let i = 0; i < e.elems.length; i++) elems[i] = this.expr(e.elems[i]!, env);
        return { kind: 'array', elems };
      }
      case 'record':
        return { kind: 'record', fields: e.fields.map((f) => ({ name: f.name, value: this.expr(f.value, env) })) };
      case 'compose':
        return {
          kind: 'constructed',
          name: 'compose',
          fields: [{ name: 'layers', value: { kind: 'array', elems: e.layers.map((l) => this.expr(l, env)) } }],
        };
      case 'lambda': {
        const v: Value = { kind: 'lambda', params: e.params.map((p) => p.name) };
        closures.set(v, { params: e.params, body: e.body, env });
        return v;
      }
      case 'unary': {
        const v = this.expr(e.operand, env);
        if (this.warnAnimated && this.signals.has(v)) this.animatedOperand(e, `unary '${e.op}'`);
        return this.result(e, unaryOp(e.op, v));
      }
      case 'binary': {
        const l = this.expr(e.left, env);
        const r = this.expr(e.right, env);
        if (this.warnAnimated && (this.signals.has(l) || this.signals.has(r))) this.animatedOperand(e, `'${e.op}'`);
        return this.result(e, binaryOp(e.op, l, r));
      }
      case 'if': {
        const c = this.expr(e.cond, env);
        if (c.kind !== 'bool') return this.fail(e, EvalFailure.kind('if condition', 'bool', c.kind));
        if (c.value) return this.block(e.then, env);
        if (e.else) return this.expr(e.else, env);
        return NIL;
      }
      case 'match':
        return this.match(e, env);
      case 'field': {
        const path = this.namePath(e, env);
        if (path !== null) return { kind: 'constructed', name: path, fields: [] };
        const r = this.expr(e.receiver, env);
        if (this.signals.has(r)) {
          const f = signalField(r, e.name);
          return this.signals.has(f) ? f : this.signalValue(f, false);
        }
        return this.result(e, fieldAccess(r, e.name));
      }
      case 'index': {
        const r = this.expr(e.receiver, env);
        const i = this.expr(e.index, env);
        return this.result(e, indexAccess(r, i));
      }
      case 'call':
        return this.call(e, env);
      case 'method': {
        const path = this.unboundPath(e.path, env);
        if (path !== null) return this.staged(path, this.args(e.args, env), e);
        const recv = this.expr(e.receiver, env); // receiver first, then the arguments
        return { kind: 'constructed', name: e.name, fields: [{ name: '', value: recv }, ...this.args(e.args, env)] };
      }
      case 'animate':
        return this.animate(e, env);
    }
  }

  private animatedOperand(span: Span, op: string): void {
    const d = this.sm.diag(span.start, span.end, {
      code: 'ANI001',
      severity: 'warning',
      message: `operator ${op} on an animated value: cmotion's runner refuses this source, cmrender renders it`,
      help: "cmotion keeps animate, wave, bounce, on_event and noise symbolic, so an operator on one fails its evaluation and the whole source is refused. To render there too, put the arithmetic inside the keyframes (animate { 0s => 10px - 330px, ... }) or in the signal's own arguments (wave(amplitude: 2 * 40px, ...))",
      fixSafety: 'requires-human-review',
      repair: { id: 'fold-into-signal', summary: "Move the arithmetic into the animation's keyframes or arguments." },
    });
    if (!this.warnings.some((w) => w.line === d.line && w.column === d.column)) this.warnings.push(d);
  }

  private args(args: E<'call'>['args'], env: Env | null): Field[] {
    return args.map((a) => ({ name: a.name ?? '', value: this.expr(a.value, env) }));
  }

  private match(e: E<'match'>, env: Env | null): Value {
    const s = this.expr(e.subject, env);
    for (const arm of e.arms) {
      const p = arm.pattern;
      if (p.p === 'wildcard') return this.expr(arm.body, env);
      if (p.p === 'ident') return this.expr(arm.body, bind(env, p.name, s));
      if (equal(this.expr(p.lit, env), s)) return this.expr(arm.body, env);
    }
    return this.fail(e, new EvalFailure('EVL002', `match has no arm for subject of kind '${s.kind}'`, 'add-match-arm'));
  }

  /** A call: staged when the callee is a name path (stdlib.md §3.4), else a lambda application. */
  private call(e: E<'call'>, env: Env | null): Value {
    const path = this.namePath(e.callee, env);
    if (path !== null) return this.staged(path, this.args(e.args, env), e);
    const callee = this.expr(e.callee, env);
    const clo = closures.get(callee);
    if (!clo)
      return this.fail(
        e,
        new EvalFailure('EVL002', `value of kind '${callee.kind}' is not callable`, 'use-named-constructor'),
      );
    if (++this.calls > MAX_CALL_DEPTH)
      throw Abort.at(
        this.sm,
        e,
        'EVL007',
        `evaluation nested deeper than ${MAX_CALL_DEPTH} lambda calls`,
        RECURSION_HELP,
      );
    try {
      // parameters in declaration order: named argument, else next positional, else default;
      // an argument is evaluated only when picked
      const used = new Array<boolean>(e.args.length).fill(false);
      let scope = clo.env;
      for (const p of clo.params) {
        let idx = e.args.findIndex((a, i) => !used[i] && a.name === p.name);
        if (idx < 0) idx = e.args.findIndex((a, i) => !used[i] && a.name === null);
        let v: Value;
        if (idx >= 0) {
          used[idx] = true;
          v = this.expr(e.args[idx]!.value, env);
        } else if (p.default) v = this.expr(p.default, scope);
        else
          v = this.fail(
            e,
            new EvalFailure('EVL004', `missing required argument '${p.name}'`, 'supply-argument', p.name),
          );
        scope = bind(scope, p.name, v);
      }
      return this.block(clo.body, scope);
    } finally {
      this.calls--;
    }
  }

  /** A call of a library (or unknown) name: a constructed node, or a time signal resolved at t. */
  private staged(name: string, fields: Field[], span: Span): Value {
    const node: Value = { kind: 'constructed', name, fields };
    // the time signals written as calls, by exact name (stdlib.md §4.3: `anim.wave(...)` is not
    // `wave`); a switch with direct calls, as every library call of every frame comes through here
    let v: Value | EvalFailure | null;
    if (name === 'wave' || name === 'bounce' || name === 'on_event' || name === 'noise') this.usedTime = true;
    switch (name) {
      case 'wave':
        v = waveAt(fields, this.t);
        break;
      case 'bounce':
        v = bounceAt(fields, this.t);
        break;
      case 'on_event':
        v = onEventAt(fields, this.t);
        break;
      case 'noise':
        v = noiseAt(fields, this.t);
        break;
      default:
        return node;
    }
    if (v === null) return node;
    return v instanceof EvalFailure ? this.fail(span, v) : this.signalValue(v, true);
  }

  /**
   * Marks a value as coming from a time signal, for `.name` on it (signals/field-of.ts); a value
   * the signal did not make (`made` false) is copied first, as it may be bound elsewhere.
   */
  private signalValue(v: Value, made: boolean): Value {
    if (made) return this.signals.markMade(v);
    const copy = shallowCopy(v);
    if (v.kind === 'lambda') {
      const clo = closures.get(v);
      if (clo) closures.set(copy, clo); // an animated lambda stays callable
    }
    return this.signals.mark(copy);
  }

  private animate(e: E<'animate'>, env: Env | null): Value {
    this.usedTime = true;
    const keys: Keyframe[] = e.keyframes.map((k) => ({ at: this.expr(k.at, env), value: this.expr(k.value, env) }));
    const opts: Field[] | null = e.opts ? e.opts.map((o) => ({ name: o.name, value: this.expr(o.value, env) })) : null;
    const v = animateAt(keys, opts, this.t);
    if (v === null) return animateNode(keys, opts);
    // a holding animation returns a keyframe's own value, which may be bound elsewhere
    return this.signalValue(v, !keys.some((k) => k.value === v));
  }
}
