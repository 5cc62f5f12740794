// Operations on evaluated values: operators, equality, field access and indexing (stdlib.md
// §3.5-§3.7), with the unit conversions of docs/compatibility.md. Pure: a failure comes back as an
// EvalFailure and the evaluator reports it at the expression.

import { EvalFailure } from './eval-failure.js';
import { convertUnit, unitLabel } from './units.js';
import { NIL, type Unit, type Value } from './value.js';

export type OpResult = Value | EvalFailure;

/** A number result, or EVL005 when it is not finite (the reference would emit invalid JSON). */
export function finiteNumber(v: number, unit: Unit | null): OpResult {
  if (!Number.isFinite(v))
    return new EvalFailure(
      'EVL005',
      `arithmetic result is not a finite number (${Number.isNaN(v) ? 'NaN' : v > 0 ? 'Infinity' : '-Infinity'})`,
      'avoid-non-finite',
    );
  return { kind: 'number', value: v, unit };
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

/** `-v` and `!v`. */
export function unaryOp(op: '-' | '!', v: Value): OpResult {
  if (op === '-') {
    if (v.kind !== 'number') return EvalFailure.kind('unary -', 'number', v.kind);
    return { kind: 'number', value: -v.value, unit: v.unit };
  }
  if (v.kind !== 'bool') return EvalFailure.kind('unary !', 'bool', v.kind);
  return { kind: 'bool', value: !v.value };
}

/** A binary operator on two evaluated operands (both are always evaluated: no short-circuit). */
export function binaryOp(op: string, l: Value, r: Value): OpResult {
  if (op === '==' || op === '!=') {
    const eq = equal(l, r);
    return { kind: 'bool', value: op === '==' ? eq : !eq };
  }
  if (op === '&&' || op === '||') {
    const bad = l.kind !== 'bool' ? l : r.kind !== 'bool' ? r : null;
    if (bad) return EvalFailure.kind(op, 'bool', bad.kind);
    const a = (l as { value: boolean }).value;
    const b = (r as { value: boolean }).value;
    return { kind: 'bool', value: op === '&&' ? a && b : a || b };
  }
  const cmp = op === '<' || op === '<=' || op === '>' || op === '>=';
  if (l.kind !== 'number' || r.kind !== 'number') {
    const bad = l.kind !== 'number' ? l : r;
    return EvalFailure.kind(cmp ? 'comparison' : 'arithmetic', 'number', bad.kind);
  }
  if (cmp || op === '+' || op === '-' || op === '%') {
    const rv = convertUnit(r.value, r.unit, l.unit);
    if (rv === null)
      return new EvalFailure(
        'EVL002',
        `operator '${op}' mixes units: ${unitLabel(l.unit)} vs ${unitLabel(r.unit)}`,
        'match-operand-units',
        unitLabel(l.unit),
        unitLabel(r.unit),
      );
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
        return finiteNumber(a + rv, l.unit);
      case '-':
        return finiteNumber(a - rv, l.unit);
      default:
        return finiteNumber(rv === 0 ? a % 1 : a % rv, l.unit);
    }
  }
  // no unit algebra: the left operand's unit, else the right's
  const unit = l.unit ?? r.unit;
  switch (op) {
    case '*':
      return finiteNumber(l.value * r.value, unit);
    case '/':
      return finiteNumber(r.value === 0 ? 0 : l.value / r.value, unit);
    default:
      return finiteNumber(l.value ** r.value, unit);
  }
}

/** `recv.name` on an evaluated receiver (not a name path). */
export function fieldAccess(recv: Value, name: string): OpResult {
  if (recv.kind === 'record') {
    const f = recv.fields.find((x) => x.name === name);
    if (f) return f.value;
    return new EvalFailure('EVL002', `record has no field '${name}'`, 'add-or-rename-field');
  }
  if (recv.kind === 'constructed') return NIL; // stdlib.md §4.8: field_of a non-record is nil
  return EvalFailure.kind('field access', 'record', recv.kind);
}

/** `recv[index]`: arrays by unitless number (truncated), records by string key. */
export function indexAccess(recv: Value, index: Value): OpResult {
  if (recv.kind === 'array') {
    if (index.kind !== 'number') return EvalFailure.kind('array index', 'number', index.kind);
    if (index.unit !== null) return EvalFailure.kind('array index', 'unitless integer', 'number');
    const k = Math.trunc(index.value);
    if (!(k >= 0 && k < recv.elems.length))
      return new EvalFailure('EVL002', `array index ${k} is out of bounds (length ${recv.elems.length})`, 'fix-index');
    return recv.elems[k]!;
  }
  if (recv.kind === 'record') {
    if (index.kind !== 'string') return EvalFailure.kind('record index', 'string', index.kind);
    let key = index.raw;
    if (key.length >= 2 && key.startsWith('"') && key.endsWith('"')) key = key.slice(1, -1);
    const f = recv.fields.find((x) => x.name === key);
    if (f) return f.value;
    return new EvalFailure('EVL002', `record has no field '${key}'`, 'add-or-rename-field');
  }
  return EvalFailure.kind('indexing', 'array or record', recv.kind);
}
