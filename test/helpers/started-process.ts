// API processes and render workers as child processes (the compiled entry points of `npm start` and `npm run worker`),
// sharing one Redis and one DATA_DIR: what the Redis-mode tests and the bench start. Every process is stopped by
// stop() (SIGKILL when SIGTERM is not enough), so a failed test leaves nothing running.
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { LOOPBACK_SERVICE_ENV, onLogLines, spawnService, type SpawnOptions } from './service-spawn.js';

export interface StartedProcess {
  proc: ChildProcess;
  /** every log line so far (pino JSON) */
  lines: Record<string, unknown>[];
  /** http://127.0.0.1:port for an API process */
  url?: string;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Starts an API (`npm start`) or a worker (`npm run worker`) and resolves once it says it is ready (90 s at most). */
export async function startProcess(
  role: 'api' | 'worker',
  env: Record<string, string>,
  timeoutMs = 90_000,
  spawnOptions: SpawnOptions = {},
): Promise<StartedProcess> {
  let url: string | undefined;
  const proc = spawnService(role, { ...LOOPBACK_SERVICE_ENV, ...env }, spawnOptions);
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const ready = new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${role} not ready in ${timeoutMs} ms: ${stderr}`)), timeoutMs);
    proc.on('exit', (code) => {
      clearTimeout(t);
      reject(new Error(`${role} exited with ${code}: ${stderr}`));
    });
    onLogLines(proc.stdout!, (j) => {
      lines.push(j);
      if (j.msg === 'cmrender listening' || j.msg === 'cmrender worker ready') {
        // an API binds the port the system gives it (PORT=0) and says which
        if (typeof j.address === 'string') url = j.address;
        clearTimeout(t);
        resolve();
      }
    });
  });
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const gone = once(proc, 'exit');
    proc.kill(signal);
    const t = setTimeout(() => proc.kill('SIGKILL'), 20_000);
    await gone;
    clearTimeout(t);
  };
  try {
    await ready;
  } catch (e) {
    await stop('SIGKILL');
    throw e;
  }
  proc.removeAllListeners('exit');
  return { proc, lines, url, stop };
}
