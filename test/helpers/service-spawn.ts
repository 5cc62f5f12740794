// The one way the tests start the service's own processes: the compiled entry points `npm start` (api), `npm run
// worker` (worker) and `npm run runner` (runner, the standalone synchronous runner) run, dist/app/*.js, and
// `cmrender open FILE` (open: the service in the CLI's process), as a child,
// stdout and stderr piped for its log. The bundle, not tsx over src/: it is what users run, and it starts in about
// half the CPU (no transpiling), which a suite that starts the service some hundred times feels. npm test builds it
// first; a test run alone on a stale dist/ says so instead of testing old code. What waits for it to be ready stays
// with the caller (StartedProcess: its ready log line; ServiceProcess: /healthz and ready(); the runner's test: its
// runner_listening line). runServiceToEnd runs one to its exit (a start that must be refused); `root` runs another
// folder's build (the Docker image's layout). Only the README's test starts the service another way: it runs the
// README's own commands.
import { spawn, spawnSync, type ChildProcessByStdio, type SpawnSyncReturns } from 'node:child_process';
import type { Readable } from 'node:stream';
import { join, relative } from 'node:path';
import { repoRoot } from '../../src/paths.js';
import { builtApp } from './built.js';

const ENTRY = {
  api: join(repoRoot, 'dist', 'app', 'server.js'),
  worker: join(repoRoot, 'dist', 'app', 'worker.js'),
  runner: join(repoRoot, 'dist', 'app', 'runner.js'),
  // `cmrender open FILE` serves the editor and the service from the CLI's process; bin/ picks the build or the sources
  open: join(repoRoot, 'bin', 'cmrender.js'),
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
  /**
   * the folder whose dist/app/ is run, and its working directory (default: this repository, whose build is checked
   * first): the Docker image's layout copied by test/scripts/build-app.test.ts
   */
  root?: string;
  /** the working directory, when not `root` */
  cwd?: string;
  /** arguments after the entry point (`open`: the file and the flags) */
  args?: string[];
}

/** node's arguments for a role: its entry point (another root's, given one), then `open`'s command and args. */
function argvOf(role: keyof typeof ENTRY, o: SpawnOptions): string[] {
  // bin/ checks its own build (it falls back to the sources); the entry points of dist/app are checked here
  if (o.root === undefined && role !== 'open') builtApp();
  const entry = o.root === undefined ? ENTRY[role] : join(o.root, relative(repoRoot, ENTRY[role]));
  return [entry, ...(role === 'open' ? ['open'] : []), ...(o.args ?? [])];
}

function childEnvOf(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete childEnv[k];
  return childEnv;
}

/** Spawns an API, a worker, the runner or `cmrender open` with `env` over this process's environment (a key set to undefined is removed). */
export function spawnService(
  role: keyof typeof ENTRY,
  env: Record<string, string | undefined>,
  o: SpawnOptions = {},
): ChildProcessByStdio<null, Readable, Readable> {
  const entry = argvOf(role, o);
  const [cmd, args] =
    o.maxOpenFiles === undefined
      ? [process.execPath, entry]
      : ['bash', ['-c', `ulimit -n ${o.maxOpenFiles} && exec "$0" "$@"`, process.execPath, ...entry]];
  return spawn(cmd, args, {
    cwd: o.cwd ?? o.root ?? repoRoot,
    env: childEnvOf(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * Runs an API, a worker, the runner or `cmrender open` to its end (a start that must be refused), at most timeoutMs: its exit status
 * and output.
 */
export function runServiceToEnd(
  role: keyof typeof ENTRY,
  env: Record<string, string | undefined>,
  o: SpawnOptions & { timeoutMs?: number } = {},
): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, argvOf(role, o), {
    cwd: o.cwd ?? o.root ?? repoRoot,
    env: childEnvOf(env),
    encoding: 'utf8',
    timeout: o.timeoutMs ?? 30_000,
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
