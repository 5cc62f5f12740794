// A redis-server of a test's own: a free loopback port, its own directory, stopped in after(). Restartable on the
// same port and directory (with appendonly, its data survives the restart) for the Redis fault tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.js';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}

/** Sends PING and resolves with the answer's first line, or rejects (connection refused, no answer in 1 s). */
function ping(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1');
    const t = setTimeout(() => (s.destroy(), reject(new Error('no answer'))), 1000);
    s.on('error', (e) => (clearTimeout(t), reject(e)));
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      clearTimeout(t);
      s.destroy();
      resolve(String(d).split('\r\n')[0]!);
    });
  });
}

export class TestRedis {
  private proc: ChildProcess | null = null;
  private constructor(
    readonly port: number,
    readonly dir: string,
    private readonly persist: boolean,
  ) {}

  /** Starts a server; persist: appendonly (its data survives stop() + start()). */
  static async start(opts: { persist?: boolean } = {}): Promise<TestRedis> {
    const dir = await mkdtemp(join(tmpdir(), 'cmr-redis-'));
    // redis-server cannot bind port 0 and say which it got: a port is picked and released first, and when another
    // process took it in between (tests run side by side), redis-server exits at once and another port is tried
    for (let attempt = 1; ; attempt++) {
      const r = new TestRedis(await freePort(), dir, opts.persist ?? false);
      try {
        await r.start();
        return r;
      } catch (err) {
        if (attempt >= 5 || !/exited/.test((err as Error).message)) throw err;
      }
    }
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    args.push('--appendonly', this.persist ? 'yes' : 'no', '--appendfsync', 'always');
    this.proc = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
    const proc = this.proc;
    // an exit ends the wait at once (the port was taken: start() tries another)
    await until(
      'redis-server to answer PING (or exit)',
      async () => proc.exitCode !== null || (await ping(this.port)) === '+PONG',
      10_000,
    );
    if (proc.exitCode !== null) throw new Error(`redis-server exited with ${proc.exitCode}`);
  }

  /** Stops the server (SIGTERM, then SIGKILL after 5 s); resolves once it is gone. */
  async stop(): Promise<void> {
    const p = this.proc;
    this.proc = null;
    if (!p || p.exitCode !== null || p.signalCode !== null) return;
    const gone = once(p, 'exit');
    p.kill('SIGTERM');
    const t = setTimeout(() => p.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(t);
  }

  /** Stops the server and removes its directory. */
  async close(): Promise<void> {
    await this.stop();
    await rm(this.dir, { recursive: true, force: true });
  }
}
