import { compile, type Diagnostic, type Value } from '../../src/lang/index.js';

export { repoRoot } from '../helpers/shared.js';

/** Value of `expr` evaluated inside a scene at time t; throws if compile reports errors. */
export function evalExpr(expr: string, t = 0, prelude = ''): Value {
  const c = compile(`${prelude}\nscene s() -> Frame { ${expr} }`);
  if (!c.program) throw new Error('no program: ' + JSON.stringify(c.diagnostics));
  return c.program.sceneAt(t).value;
}

/** Diagnostics of evaluating `expr` at t. */
export function evalDiags(expr: string, t = 0, prelude = ''): Diagnostic[] {
  const c = compile(`${prelude}\nscene s() -> Frame { ${expr} }`);
  if (!c.program) return c.diagnostics;
  return c.program.sceneAt(t).diagnostics;
}

export function numberOf(v: Value): number {
  if (v.kind !== 'number') throw new Error('not a number: ' + JSON.stringify(v));
  return v.value;
}

export function codes(src: string): string[] {
  return compile(src).diagnostics.map((d) => d.code);
}
