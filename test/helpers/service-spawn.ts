// The one way the tests start the service's own processes: the compiled entry points `npm start` (api), `npm run
// worker` (worker) and `npm run runner` (runner, the standalone synchronous runner) run, dist/app/*.js, as a child,
// stdout and stderr piped for its log. The bundle, not tsx over src/: it is what users run, and it starts in about
// half the CPU (no transpiling), which a suite that starts the service some hundred times feels. npm test builds it
// first; a test run alone on a stale dist/ says so instead of testing old code. What waits for it to be ready stays
// with the caller (StartedProcess: its ready log line; ServiceProcess: /healthz and ready(); the runner's test: its
// runner_listening line).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { join } from 'node:path';
import { repoRoot } from '../../src/paths.js';
import { builtApp } from './built.js';

const ENTRY = {
  api: join(repoRoot, 'dist', 'app', 'server.js'),
  worker: join(repoRoot, 'dist', 'app', 'worker.js'),
  runner: join(repoRoot, 'dist', 'app', 'runner.js'),
};

/**
 * What most service tests run with: loopback on a port of the system's choice (its log says which), info logs,
 * and no render cache (a test that renders the same request twice means it; only a test that turns it on has it).
 */
export const LOOPBACK_SERVICE_ENV: Record<string, string> = {
  HOST: '127.0.0.1',
  PORT: '0',
  LOG_LEVEL: 'info',
  RENDER_CACHE: 'off',
};

export interface SpawnOptions {
  /** the process's open-file limit (`ulimit -n`, set by bash, which then becomes the service: one pid) */
  maxOpenFiles?: number;
}

/** Spawns an API, a worker or the runner with `env` over this process's environment (a key set to undefined is removed). */
export function spawnService(
  role: keyof typeof ENTRY,
  env: Record<string, string | undefined>,
  o: SpawnOptions = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  builtApp();
  const [cmd, args] =
    o.maxOpenFiles === undefined
      ? [process.execPath, [ENTRY[role]]]
      : ['bash', ['-c', `ulimit -n ${o.maxOpenFiles} && exec "$0" "$@"`, process.execPath, ENTRY[role]]];
  return spawn(cmd, args, {
    cwd: repoRoot,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Calls `each` with every pino JSON line a service writes to `stream` (other output is skipped). */
export function onLogLines(stream: Readable, each: (line: Record<string, unknown>) => void): void {
  let buf = '';
  stream.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const text = buf.slice(0, i);
      buf = buf.slice(i + 1);
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(text) as Record<string, unknown>;
      } catch {
        continue; // not a log line
      }
      each(line);
    }
  });
}
