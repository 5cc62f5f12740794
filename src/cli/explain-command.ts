// `cmrender explain CODE [--json]`: the long explanation of a diagnostic code, with a wrong and a right source, from
// the language's registry (src/lang/diagnostic-docs.ts), the same text GET /v1/diagnostics/{code} answers.
// Exit status: 0 explained, 1 no such code, 2 usage error.
import { diagnosticDoc, diagnosticDocsPath, DIAGNOSTIC_DOCS } from '../lang/diagnostic-docs.js';

import { EXPLAIN_USAGE } from './usage.js';

interface LineIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

const indent = (s: string) =>
  s
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => (l ? `    ${l}` : l))
    .join('\n');

export function explainCommand(argv: readonly string[], io: LineIo): number {
  let json = false;
  const codes: string[] = [];
  for (const a of argv) {
    if (a === '--json') json = true;
    else if (a.startsWith('-')) return usage(io, `unknown flag '${a}'`);
    else codes.push(a);
  }
  if (codes.length === 0) return usage(io, '`explain` requires a diagnostic code');
  if (codes.length > 1) return usage(io, `unexpected extra argument: ${codes[1]}`);
  const code = codes[0]!.toUpperCase();
  const d = diagnosticDoc(code);
  if (!d) {
    io.err(
      `error: no explanation registered for '${codes[0]}' (known codes: ${DIAGNOSTIC_DOCS.map((x) => x.code).join(', ')})`,
    );
    return 1;
  }
  if (json) {
    io.out(JSON.stringify({ ...d, docs: diagnosticDocsPath(d.code) }));
    return 0;
  }
  const lines = [`${d.code}: ${d.title} (${d.severity}, found while ${STAGE[d.stage]})`, '', d.explanation];
  if (d.wrong) lines.push('', `Wrong${d.assets ? ` (${d.assets.wrong})` : ''}:`, '', indent(d.wrong));
  // a service code's source is the same both ways (what changes is what the job is given): said, not printed twice
  if (d.right && d.right === d.wrong && d.assets) lines.push('', `Right: the same source, with ${d.assets.right}.`);
  else if (d.right) lines.push('', `Right${d.assets ? ` (${d.assets.right})` : ''}:`, '', indent(d.right));
  io.out(lines.join('\n'));
  return 0;
}

const STAGE: Record<string, string> = {
  parse: 'parsing',
  check: 'checking',
  runner: 'checking the runner pin',
  evaluate: 'evaluating',
  render: 'choosing what to render',
  service: "resolving the job's images",
};

function usage(io: LineIo, msg: string): number {
  io.err(`error: ${msg}\nusage: ${EXPLAIN_USAGE}`);
  return 2;
}
