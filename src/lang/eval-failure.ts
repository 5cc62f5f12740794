// What an evaluation error says, separate from where it happened: value operations and signals
// return an EvalFailure, and the evaluator turns it into a diagnostic at the expression's span.

import type { Span } from './ast.js';
import type { Diagnostic, SourceMap } from './diagnostics.js';

const HELP: Record<string, string> = {
  'match-operand-type':
    'give the operator or construct a value of the kind it expects (animated values are numbers at each frame; library calls are nodes, not numbers)',
  'match-operand-units':
    'use the same unit on both sides, or units of one category (time, angle, frequency), which convert',
  'fix-index': 'use an index between 0 and the array length minus one',
  'add-or-rename-field': 'add the field to the record, or fix the field name',
  'use-named-constructor': 'only lambdas can be called; an all-default component is bound to its value',
  'add-match-arm': "add an arm for this value, or a final '_ =>' arm",
  'supply-argument': 'pass the argument by name or position, or give the parameter a default',
  'avoid-non-finite': 'keep the operands in range (no overflow, no fractional power of a negative number)',
};

/** A recoverable evaluation error (stdlib.md §3.10): reported, the value becomes nil, evaluation goes on. */
export class EvalFailure {
  constructor(
    readonly code: string,
    readonly message: string,
    readonly repairId: string,
    readonly expected?: string,
    readonly actual?: string,
  ) {}

  /** `<what> expected <expected>, got <kind>` (stdlib.md §7.1), the most common failure. */
  static kind(what: string, expected: string, actual: string): EvalFailure {
    return new EvalFailure(
      'EVL002',
      `${what} expected ${expected}, got ${actual}`,
      'match-operand-type',
      expected,
      actual,
    );
  }

  toDiagnostic(sm: SourceMap, span: Span): Diagnostic {
    return sm.diag(span.start, span.end, {
      code: this.code,
      message: this.message,
      expected: this.expected,
      actual: this.actual,
      help: HELP[this.repairId] ?? 'change the expression so that it evaluates without error',
      fixSafety: 'requires-human-review',
      repair: { id: this.repairId, summary: 'Change the expression so that it evaluates without error.' },
    });
  }
}

/** A source that asks for too much work or nesting (EVL006, EVL007): evaluation stops here. */
export class Abort {
  constructor(readonly diag: Diagnostic) {}

  static at(sm: SourceMap, span: Span, code: string, message: string, help: string): Abort {
    return new Abort(
      sm.diag(span.start, span.end, {
        code,
        message,
        help,
        fixSafety: 'requires-human-review',
        repair: { id: 'simplify-source', summary: 'Reduce the amount of work or nesting the source asks for.' },
      }),
    );
  }
}
