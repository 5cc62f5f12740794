// Per-frame evaluator: the whole program is evaluated at time t (seconds) and every time signal
// (animate, wave, bounce, on_event, noise) resolves to its value at t while evaluating, so
// arithmetic on animated values works. Semantics otherwise follow stdlib.md §3-§4; deliberate
// differences are listed in docs/compatibility.md.

import type { Block, Expr, LetDecl, Program, Span, TopDecl } from './ast';
import type { Diagnostic, SourceMap } from './diagnostics';
import { convertUnit, toSeconds, unitLabel, unitTag } from './units';
import { NIL, type Field, type Unit, type Value } from './value';

export const STEP_BUDGET = 200_000;
export const MAX_EVAL_DEPTH = 1200;
export const MAX_CALL_DEPTH = 150;
export const MAX_VALUE_NODES = 100_000;
export const MAX_VALUE_DEPTH = 200;

// ---- environments: persistent linked lists, so a lambda captures a snapshot for free ----
interface Env {
  name: string;
  value: Value;
  parent: Env | null;
}
function lookup(env: Env | null, name: string): Value | undefined {
  for (let e = env; e; e = e.parent) if (e.name === name) return e.value;
  return undefined;
}
function bind(env: Env | null, name: string, value: Value): Env {
  return { name, value, parent: env };
}

interface Closure {
  params: LetLike[];
  body: Block;
  env: Env | null;
}
interface LetLike {
  name: string;
  default: Expr | null;
}
const closures = new WeakMap<Value, Closure>();

class Abort {
  constructor(readonly diag: Diagnostic) {}
}

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

// ---- easings (stdlib.md §4.5) ----
export const EASINGS: Record<string, (f: number) => number> = {
  'easing.linear': (f) => f,
  'easing.in_quad': (f) => f * f,
  'easing.out_quad': (f) => 1 - (1 - f) * (1 - f),
  'easing.in_out_quad': (f) => (f < 0.5 ? 2 * f * f : 1 - (2 - 2 * f) ** 2 / 2),
  'easing.in_cubic': (f) => f * f * f,
  'easing.out_cubic': (f) => 1 - (1 - f) ** 3,
  'easing.in_out_cubic': (f) => (f < 0.5 ? 4 * f * f * f : 1 - (2 - 2 * f) ** 3 / 2),
};

const mod = (x: number, m: number): number => x - m * Math.floor(x / m);

/** Keyframe interpolation (stdlib.md §4.4) plus `repeat: N`. */
export function interpolate(
  keys: { at: number; value: Value }[],
  t: number,
  opts: { repeat: 'forever' | number | null; ease: (f: number) => number },
): Value {
  const n = keys.length;
  if (n === 1) return keys[0]!.value;
  const tmin = keys[0]!.at;
  const tmax = keys[n - 1]!.at;
  let u = t;
  const span = tmax - tmin;
  if (opts.repeat === 'forever' && span > 0) u = tmin + mod(t - tmin, span);
  else if (typeof opts.repeat === 'number' && span > 0 && t > tmin) {
    if (t < tmin + opts.repeat * span) u = tmin + mod(t - tmin, span);
    else u = tmax;
  }
  if (u <= tmin) return keys[0]!.value;
  if (u >= tmax) return keys[n - 1]!.value;
  let i = 0;
  while (i + 1 < n && u > keys[i + 1]!.at) i++;
  const a = keys[i]!;
  const b = keys[i + 1]!;
  if (b.at === a.at) return a.value;
  const f = opts.ease((u - a.at) / (b.at - a.at));
  return mix(a.value, b.value, f);
}

function mix(a: Value, b: Value, f: number): Value {
  if (a.kind === 'number' && b.kind === 'number') {
    const bv = convertUnit(b.value, b.unit, a.unit) ?? b.value;
    return { kind: 'number', value: a.value + f * (bv - a.value), unit: a.unit };
  }
  return f < 1 ? a : b;
}

// ---- deterministic value noise in [-1, 1] ----
function hash(seed: number, k: number): number {
  let h = Math.imul((seed | 0) ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(k | 0, 0xc2b2ae35);
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967295; // [0, 1]
}
/** Smooth value noise: random lattice values at multiples of `period`, smoothstep between. */
export function noise(seed: number, period: number, t: number): number {
  const x = t / period;
  const k = Math.floor(x);
  const f = x - k;
  const s = f * f * (3 - 2 * f);
  const a = hash(seed, k) * 2 - 1;
  const b = hash(seed, k + 1) * 2 - 1;
  return a + (b - a) * s;
}

const EVAL_HELP: Record<string, string> = {
  'match-operand-type': 'give the operator or construct a value of the kind it expects (animated values are numbers at each frame; library calls are nodes, not numbers)',
  'match-operand-units': 'use the same unit on both sides, or units of one category (time, angle, frequency), which convert',
  'fix-index': 'use an index between 0 and the array length minus one',
  'add-or-rename-field': 'add the field to the record, or fix the field name',
  'use-named-constructor': 'only lambdas can be called; an all-default component is bound to its value',
  'add-match-arm': "add an arm for this value, or a final '_ =>' arm",
  'supply-argument': 'pass the argument by name or position, or give the parameter a default',
  'avoid-non-finite': 'keep the operands in range (no overflow, no fractional power of a negative number)',
};

// ---- the evaluator ----
type E<K extends Expr['k']> = Extract<Expr, { k: K }>;

export class Evaluator {
  private diags: Diagnostic[] = [];
  private steps = 0;
  private depth = 0;
  private calls = 0;
  readonly t: number;

  constructor(
    private sm: SourceMap,
    t: number,
  ) {
    // stdlib.md §4.1: time floored to whole nanoseconds
    this.t = Number.isFinite(t) ? Math.floor(t * 1e9) / 1e9 : 0;
  }

  private err(span: Span, code: string, message: string, repairId: string, extra: { expected?: string; actual?: string } = {}): void {
    this.diags.push(
      this.sm.diag(span.start, span.end, {
        code,
        message,
        ...extra,
        help: EVAL_HELP[repairId] ?? 'change the expression so that it evaluates without error',
        fixSafety: 'requires-human-review',
        repair: { id: repairId, summary: 'Change the expression so that it evaluates without error.' },
      }),
    );
  }

  private abort(span: Span, code: string, message: string, help: string): never {
    throw new Abort(
      this.sm.diag(span.start, span.end, {
        code,
        message,
        help,
        fixSafety: 'requires-human-review',
        repair: { id: 'simplify-source', summary: 'Reduce the amount of work or nesting the source asks for.' },
      }),
    );
  }

  run(prog: Program): EvalResult {
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
        if (d.params.some((p) => !p.default)) continue;
        let scope: Env | null = env;
        const params = new Map<string, Value>();
        for (const p of d.params) {
          const v = this.expr(p.default!, env);
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

  private finite(v: number, span: Span, unit: Unit | null): Value {
    if (!Number.isFinite(v)) {
      this.err(span, 'EVL005', `arithmetic result is not a finite number (${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'})`, 'avoid-non-finite');
      return NIL;
    }
    return { kind: 'number', value: v, unit };
  }

  /** dotted name when `e` is a name path rooted at an unbound identifier */
  private namePath(e: Expr, env: Env | null): string | null {
    if (e.k === 'ident') return lookup(env, e.name) === undefined ? e.name : null;
    if (e.k === 'field') {
      const r = this.namePath(e.receiver, env);
      return r === null ? null : `${r}.${e.name}`;
    }
    return null;
  }

  expr(e: Expr, env: Env | null): Value {
    if (++this.steps > STEP_BUDGET)
      this.abort(e, 'EVL006', `evaluation step budget exceeded (${STEP_BUDGET} steps)`, 'the source does too much work per frame; remove runaway recursion or very large repetitions');
    if (++this.depth > MAX_EVAL_DEPTH)
      this.abort(e, 'EVL007', `evaluation nested deeper than ${MAX_EVAL_DEPTH} levels`, 'remove unbounded recursion (such as a lambda applied to itself)');
    try {
      return this.exprInner(e, env);
    } finally {
      this.depth--;
    }
  }

  private exprInner(e: Expr, env: Env | null): Value {
    switch (e.k) {
      case 'number':
        return { kind: 'number', value: e.value, unit: unitTag(e.unit) };
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
      case 'unary':
        return this.unary(e, env);
      case 'binary':
        return this.binary(e, env);
      case 'if': {
        const c = this.expr(e.cond, env);
        if (c.kind !== 'bool') {
          this.err(e, 'EVL002', `if condition expected bool, got ${c.kind}`, 'match-operand-type', { expected: 'bool', actual: c.kind });
          return NIL;
        }
        if (c.value) return this.block(e.then, env);
        if (e.else) return this.expr(e.else, env);
        return NIL;
      }
      case 'match':
        return this.match(e, env);
      case 'field':
        return this.field(e, env);
      case 'index':
        return this.index(e, env);
      case 'call':
        return this.call(e, env);
      case 'method': {
        const path = this.namePath(e.receiver, env);
        if (path !== null) return this.staged(`${path}.${e.name}`, this.args(e.args, env), e);
        const recv = this.expr(e.receiver, env); // receiver first, then the arguments
        return { kind: 'constructed', name: e.name, fields: [{ name: '', value: recv }, ...this.args(e.args, env)] };
      }
      case 'animate':
        return this.animate(e, env);
    }
  }

  private args(args: E<'call'>['args'], env: Env | null): Field[] {
    return args.map((a) => ({ name: a.name ?? '', value: this.expr(a.value, env) }));
  }

  private unary(e: E<'unary'>, env: Env | null): Value {
    const v = this.expr(e.operand, env);
    if (e.op === '-') {
      if (v.kind !== 'number') {
        this.err(e, 'EVL002', `unary - expected number, got ${v.kind}`, 'match-operand-type', { expected: 'number', actual: v.kind });
        return NIL;
      }
      return { kind: 'number', value: -v.value, unit: v.unit };
    }
    if (v.kind !== 'bool') {
      this.err(e, 'EVL002', `unary ! expected bool, got ${v.kind}`, 'match-operand-type', { expected: 'bool', actual: v.kind });
      return NIL;
    }
    return { kind: 'bool', value: !v.value };
  }

  private binary(e: E<'binary'>, env: Env | null): Value {
    const l = this.expr(e.left, env);
    const r = this.expr(e.right, env);
    const op = e.op;
    if (op === '==' || op === '!=') {
      const eq = equal(l, r);
      return { kind: 'bool', value: op === '==' ? eq : !eq };
    }
    if (op === '&&' || op === '||') {
      const bad = l.kind !== 'bool' ? l : r.kind !== 'bool' ? r : null;
      if (bad) {
        this.err(e, 'EVL002', `${op} expected bool, got ${bad.kind}`, 'match-operand-type', { expected: 'bool', actual: bad.kind });
        return NIL;
      }
      const a = (l as { value: boolean }).value;
      const b = (r as { value: boolean }).value;
      return { kind: 'bool', value: op === '&&' ? a && b : a || b };
    }
    const cmp = op === '<' || op === '<=' || op === '>' || op === '>=';
    if (l.kind !== 'number' || r.kind !== 'number') {
      const bad = l.kind !== 'number' ? l : r;
      const what = cmp ? 'comparison' : 'arithmetic';
      this.err(e, 'EVL002', `${what} expected number, got ${bad.kind}`, 'match-operand-type', { expected: 'number', actual: bad.kind });
      return NIL;
    }
    if (cmp || op === '+' || op === '-' || op === '%') {
      const rv = convertUnit(r.value, r.unit, l.unit);
      if (rv === null) {
        this.err(e, 'EVL002', `operator '${op}' mixes units: ${unitLabel(l.unit)} vs ${unitLabel(r.unit)}`, 'match-operand-units', {
          expected: unitLabel(l.unit),
          actual: unitLabel(r.unit),
        });
        return NIL;
      }
      const a = l.value;
      switch (op) {
        case '<':
          return { kind: 'bool', value: a < rv };
        case '<=':
          return { kind: 'bool', value: a <= rv };
        case '>':
          return { kind: 'bool', value: a > rv };
        case '>=':
          return { kind: 'bool', value: a >= rv };
        case '+':
          return this.finite(a + rv, e, l.unit);
        case '-':
          return this.finite(a - rv, e, l.unit);
        default:
          return this.finite(rv === 0 ? a % 1 : a % rv, e, l.unit);
      }
    }
    const unit = l.unit ?? r.unit;
    switch (op) {
      case '*':
        return this.finite(l.value * r.value, e, unit);
      case '/':
        return this.finite(r.value === 0 ? 0 : l.value / r.value, e, unit);
      default:
        return this.finite(l.value ** r.value, e, unit);
    }
  }

  private match(e: E<'match'>, env: Env | null): Value {
    const s = this.expr(e.subject, env);
    for (const arm of e.arms) {
      const p = arm.pattern;
      if (p.p === 'wildcard') return this.expr(arm.body, env);
      if (p.p === 'ident') return this.expr(arm.body, bind(env, p.name, s));
      if (equal(this.expr(p.lit, env), s)) return this.expr(arm.body, env);
    }
    this.err(e, 'EVL002', `match has no arm for subject of kind '${s.kind}'`, 'add-match-arm');
    return NIL;
  }

  private field(e: E<'field'>, env: Env | null): Value {
    const path = this.namePath(e, env);
    if (path !== null) return { kind: 'constructed', name: path, fields: [] };
    const r = this.expr(e.receiver, env);
    if (r.kind === 'record') {
      const f = r.fields.find((x) => x.name === e.name);
      if (f) return f.value;
      this.err(e, 'EVL002', `record has no field '${e.name}'`, 'add-or-rename-field');
      return NIL;
    }
    if (r.kind === 'constructed') return NIL; // stdlib.md §4.8: field_of a non-record is nil
    this.err(e, 'EVL002', `field access expected record, got ${r.kind}`, 'match-operand-type', { expected: 'record', actual: r.kind });
    return NIL;
  }

  private index(e: E<'index'>, env: Env | null): Value {
    const r = this.expr(e.receiver, env);
    const i = this.expr(e.index, env);
    if (r.kind === 'array') {
      if (i.kind !== 'number') {
        this.err(e, 'EVL002', `array index expected number, got ${i.kind}`, 'match-operand-type', { expected: 'number', actual: i.kind });
        return NIL;
      }
      if (i.unit !== null) {
        this.err(e, 'EVL002', 'array index expected unitless integer, got number', 'match-operand-type', { expected: 'unitless integer', actual: 'number' });
        return NIL;
      }
      const k = Math.trunc(i.value);
      if (!(k >= 0 && k < r.elems.length)) {
        this.err(e, 'EVL002', `array index ${k} is out of bounds (length ${r.elems.length})`, 'fix-index');
        return NIL;
      }
      return r.elems[k]!;
    }
    if (r.kind === 'record') {
      if (i.kind !== 'string') {
        this.err(e, 'EVL002', `record index expected string, got ${i.kind}`, 'match-operand-type', { expected: 'string', actual: i.kind });
        return NIL;
      }
      let key = i.raw;
      if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
      const f = r.fields.find((x) => x.name === key);
      if (f) return f.value;
      this.err(e, 'EVL002', `record has no field '${key}'`, 'add-or-rename-field');
      return NIL;
    }
    this.err(e, 'EVL002', `indexing expected array or record, got ${r.kind}`, 'match-operand-type', { expected: 'array or record', actual: r.kind });
    return NIL;
  }

  private call(e: E<'call'>, env: Env | null): Value {
    const path = this.namePath(e.callee, env);
    if (path !== null) return this.staged(path, this.args(e.args, env), e);
    const callee = this.expr(e.callee, env);
    const clo = closures.get(callee);
    if (!clo) {
      this.err(e, 'EVL002', `value of kind '${callee.kind}' is not callable`, 'use-named-constructor');
      return NIL;
    }
    if (++this.calls > MAX_CALL_DEPTH)
      this.abort(e, 'EVL007', `evaluation nested deeper than ${MAX_CALL_DEPTH} lambda calls`, 'remove unbounded recursion (such as a lambda applied to itself)');
    try {
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
        else {
          this.err(e, 'EVL004', `missing required argument '${p.name}'`, 'supply-argument', { expected: p.name });
          v = NIL;
        }
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
    switch (name) {
      case 'wave':
        return this.wave(fields, span) ?? node;
      case 'bounce':
        return this.bounce(fields) ?? node;
      case 'on_event':
        return this.onEvent(fields) ?? node;
      case 'noise':
        return this.noise(fields) ?? node;
    }
    return node;
  }

  private wave(fields: Field[], span: Span): Value | null {
    const A = firstNamed(fields, 'amplitude');
    const P = firstNamed(fields, 'period');
    if (A?.kind !== 'number' || P?.kind !== 'number') return null;
    const p = toSeconds(P);
    if (p === 0) return null;
    return this.finite(A.value * Math.sin((2 * Math.PI * this.t) / p), span, A.unit);
  }

  private bounce(fields: Field[]): Value | null {
    const H = firstNamed(fields, 'height');
    const P = firstNamed(fields, 'period');
    const F = firstNamed(fields, 'floor');
    if (H?.kind !== 'number' || P?.kind !== 'number' || F?.kind !== 'number') return null;
    const p = toSeconds(P);
    if (!(p > 0)) return null;
    const tc = Math.max(this.t, 0);
    const phase = mod(tc, p) / p;
    const arc = 4 * phase * (1 - phase);
    const impacts: Value[] = [];
    const k0 = Math.floor(Math.max(0, tc - 2) / p);
    const k1 = Math.floor((tc + p) / p);
    for (let k = k0; k <= k1 && impacts.length < 10000; k++) impacts.push({ kind: 'number', value: k * p, unit: 's' });
    return {
      kind: 'record',
      fields: [
        { name: 'position', value: { kind: 'number', value: F.value + H.value * arc, unit: F.unit ?? H.unit } },
        { name: 'impacts', value: { kind: 'array', elems: impacts } },
      ],
    };
  }

  private onEvent(fields: Field[]): Value | null {
    const ev = firstNamed(fields, 'events') ?? fields.find((f) => f.name === '')?.value;
    const D = firstNamed(fields, 'decay');
    const Pk = firstNamed(fields, 'peak');
    if (ev?.kind !== 'array' || D?.kind !== 'number' || Pk?.kind !== 'number') return null;
    const d = toSeconds(D);
    if (!(d > 0)) return null;
    let last = -Infinity;
    for (const x of ev.elems) {
      if (x.kind !== 'number') continue;
      const s = toSeconds(x);
      if (s <= this.t && s > last) last = s;
    }
    if (last === -Infinity) return { kind: 'number', value: 0, unit: Pk.unit };
    return { kind: 'number', value: Pk.value * Math.exp(-(this.t - last) / d), unit: Pk.unit };
  }

  private noise(fields: Field[]): Value | null {
    const S = firstNamed(fields, 'seed') ?? positional(fields, 0);
    const P = firstNamed(fields, 'period') ?? positional(fields, 1);
    const seed = S?.kind === 'number' ? S.value : 0;
    let p = P?.kind === 'number' ? toSeconds(P) : 1;
    if (!(p > 0) || !Number.isFinite(p)) p = 1;
    if (!Number.isFinite(seed)) return null;
    return { kind: 'number', value: noise(Math.trunc(seed), p, this.t), unit: null };
  }

  private animate(e: E<'animate'>, env: Env | null): Value {
    const keys: { at: Value; value: Value }[] = e.keyframes.map((k) => ({ at: this.expr(k.at, env), value: this.expr(k.value, env) }));
    const opts: Field[] | null = e.opts ? e.opts.map((o) => ({ name: o.name, value: this.expr(o.value, env) })) : null;
    if (keys.some((k) => k.at.kind !== 'number')) {
      // malformed (stdlib.md §4.4): passed through unresolved
      return {
        kind: 'constructed',
        name: 'animate',
        fields: [
          { name: 'keyframes', value: { kind: 'array', elems: keys.map((k) => ({ kind: 'record', fields: [{ name: 'at', value: k.at }, { name: 'value', value: k.value }] })) } },
          { name: 'opts', value: opts ? { kind: 'record', fields: opts } : NIL },
        ],
      };
    }
    let repeat: 'forever' | number | null = null;
    let ease = EASINGS['easing.linear']!;
    if (opts) {
      const r = firstNamed(opts, 'repeat');
      if (r?.kind === 'constructed' && r.name === 'forever' && r.fields.length === 0) repeat = 'forever';
      else if (r?.kind === 'number' && Number.isFinite(r.value) && r.unit === null) repeat = Math.max(1, Math.floor(r.value));
      const ez = firstNamed(opts, 'easing');
      if (ez?.kind === 'constructed') ease = EASINGS[ez.name] ?? ease;
    }
    return interpolate(
      keys.map((k) => ({ at: toSeconds(k.at as Value & { kind: 'number' }), value: k.value })),
      this.t,
      { repeat, ease },
    );
  }
}

function firstNamed(fields: Field[], name: string): Value | undefined {
  for (const f of fields) if (f.name === name) return f.value;
  return undefined;
}
function positional(fields: Field[], n: number): Value | undefined {
  let k = 0;
  for (const f of fields)
    if (f.name === '') {
      if (k === n) return f.value;
      k++;
    }
  return undefined;
}

/** Equality (stdlib.md §3.6), with compatible units converted (docs/compatibility.md). */
export function equal(a: Value, b: Value): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'nil':
      return true;
    case 'number': {
      const bb = b as typeof a;
      const v = convertUnit(bb.value, bb.unit, a.unit);
      return v !== null && v === a.value;
    }
    case 'string':
      return a.raw === (b as typeof a).raw;
    case 'bool':
      return a.value === (b as typeof a).value;
    default:
      return false;
  }
}

/**
 * Size and depth of a value tree (shared subtrees counted per occurrence); stops early once
 * either limit is exceeded. Used to keep the rendered value small and shallow enough for JSON,
 * zod and the viewer.
 */
export function measureValue(v: Value, nodeLimit: number, depthLimit: number): { nodes: number; depth: number } {
  let nodes = 0;
  let depth = 0;
  const stack: [Value, number][] = [[v, 1]];
  while (stack.length) {
    const [x, d] = stack.pop()!;
    nodes++;
    if (d > depth) depth = d;
    if (nodes > nodeLimit || depth > depthLimit) break;
    switch (x.kind) {
      case 'array':
        for (const y of x.elems) stack.push([y, d + 1]);
        break;
      case 'record':
      case 'constructed':
        for (const f of x.fields) stack.push([f.value, d + 1]);
        break;
      case 'color':
        if (x.form === 'oklch') stack.push([x.l, d + 1], [x.c, d + 1], [x.h, d + 1]);
        else if (x.form === 'oklab') stack.push([x.l, d + 1], [x.a, d + 1], [x.b, d + 1]);
        else if (x.form === 'srgb') stack.push([x.r, d + 1], [x.g, d + 1], [x.b, d + 1]);
        break;
    }
  }
  return { nodes, depth };
}

export type { LetDecl };
