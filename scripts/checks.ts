// The first step of `npm test`: lint, format, types and the build, side by side. None reads another's output (the
// build writes only dist/, which the other three ignore), and each alone leaves a core idle for much of its run, so
// together they finish in about the time of the longest. Each one's output is printed whole when it ends; the step
// fails when any of them failed, after all have ended.
import { spawn } from 'node:child_process';
import { repoRoot } from '../src/paths.js';

const CHECKS: [name: string, command: string][] = [
  ['lint', 'npm run lint'],
  ['format', 'npm run format:check'],
  ['types', 'npx tsc --noEmit'],
  ['build', 'npm run build'],
];

function run(name: string, command: string): Promise<boolean> {
  const t0 = performance.now();
  const child = spawn(command, { cwd: repoRoot, shell: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const s = ((performance.now() - t0) / 1000).toFixed(1);
      process.stdout.write(`# ${name} (${command}): ${code === 0 ? 'ok' : `failed (exit ${code})`} in ${s} s\n${out}`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(CHECKS.map(([name, command]) => run(name, command)));
process.exitCode = results.every(Boolean) ? 0 : 1;
