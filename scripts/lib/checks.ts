// The checks `npm test` runs beside the tests (scripts/test.ts --checks): lint, format and types. None reads
// another's output or dist/, so they run while the tests do, in the time the system tests spend waiting. Each one's
// output is kept and printed whole when the run ends.
import { spawn } from 'node:child_process';
import { repoRoot } from '../../src/paths.js';

export const CHECKS: [name: string, command: string][] = [
  ['lint', 'npm run lint'],
  ['format', 'npm run format:check'],
  ['types', 'npx tsc --noEmit'],
];

/** The build the tests run against (dist/), which must be done before they start. */
export const BUILD: [name: string, command: string] = ['build', 'npm run build'];

/** Runs one check; its report is a heading line (name, command, outcome, seconds) and its whole output. */
export function runCheck(name: string, command: string): Promise<{ ok: boolean; report: string }> {
  const t0 = performance.now();
  const child = spawn(command, { cwd: repoRoot, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      const report = `# ${name} (${command}): ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${s} s\n${out}`;
      resolve({ ok: code === 0, report });
    });
  });
}
