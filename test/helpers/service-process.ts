// The real service as a child process (`node dist/app/server.js`, what `npm start` runs) on a loopback port and a given
// DATA_DIR, for tests that kill things: the service itself (SIGKILL, SIGTERM), its Chromium, its ffmpeg.
// Everything is bounded: start, requests and waits time out; stop() always ends the child.
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { repoRoot } from '../../src/paths.js';
import { LOOPBACK_SERVICE_ENV, spawnService } from './service-spawn.js';
import { until } from './until.js';
import { followEnd } from './job-client.js';

export { repoRoot };

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

export class ServiceProcess {
  log = '';
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exited = false;

  /** the port the service bound (PORT=0: the system's choice, read back from its `cmrender listening` line) */
  port = 0;

  private constructor(
    readonly child: ChildProcess,
    readonly dataDir: string,
  ) {
    child.stdout!.setEncoding('utf8').on('data', (d: string) => this.keep(d));
    child.stderr!.setEncoding('utf8').on('data', (d: string) => this.keep(d));
    this.exit = new Promise((r) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        r({ code, signal });
      }),
    );
  }

  private keep(d: string) {
    this.log += d;
    if (this.log.length > 400_000) this.log = this.log.slice(-200_000);
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** Starts the service on DATA_DIR = dataDir and a port of the system's choice, and waits for /healthz (at most startMs). */
  static async start(dataDir: string, env: Record<string, string> = {}, startMs = 60_000): Promise<ServiceProcess> {
    const child = spawnService('api', { ...LOOPBACK_SERVICE_ENV, DATA_DIR: dataDir, RENDER_CONCURRENCY: '1', ...env });
    const s = new ServiceProcess(child, dataDir);
    try {
      // an exit ends the wait at once; a refused connection (not listening yet) is "not yet"
      await until(
        () => `the service to answer /healthz (port ${s.port || 'not logged yet'})`,
        async () => {
          if (s.exited) return true;
          s.port ||= Number(
            /"address":"http:\/\/127\.0\.0\.1:(\d+)"[^\n]*"msg":"cmrender (?:warming up|listening)"/.exec(s.log)?.[1] ??
              0,
          );
          if (!s.port) return false;
          return (
            (await fetch(`http://127.0.0.1:${s.port}/healthz`, { signal: AbortSignal.timeout(2000) })).status === 200
          );
        },
        startMs,
      );
    } catch (e) {
      await s.stop();
      throw new Error(`${(e as Error).message}:\n${s.log.slice(-4000)}`);
    }
    if (s.exited) throw new Error(`service exited during start:\n${s.log.slice(-4000)}`);
    return s;
  }

  async req(method: string, path: string, body?: unknown, timeoutMs = 15_000): Promise<Answer> {
    const r = await fetch(`http://127.0.0.1:${this.port}${path}`, {
      method,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON
    }
    return { status: r.status, headers: r.headers, body: parsed, text };
  }

  /** POSTs a job and returns its id (asserting the 202). */
  /** Waits until /readyz answers 200: the renderer is warm (its start lines, `chromium launched` among them, logged). */
  async ready(timeoutMs = 120_000): Promise<void> {
    let last = 'no answer yet';
    await until(
      () => `/readyz 200 (last: ${last}):\n${this.log.slice(-4000)}`,
      async () => {
        if (this.exited) return true;
        last = String((await this.req('GET', '/readyz')).status);
        return last === '200';
      },
      timeoutMs,
    );
    if (this.exited) throw new Error(`service exited while warming up:\n${this.log.slice(-4000)}`);
  }

  async enqueue(path: string, body: unknown): Promise<string> {
    const r = await this.req('POST', path, body);
    if (r.status !== 202) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
    return r.body.job_id as string;
  }

  async job(id: string): Promise<Answer> {
    return this.req('GET', `/v1/jobs/${id}`);
  }

  /** Polls a job until it leaves pending (or pred says stop); bounded. */
  async waitJob(
    id: string,
    timeoutMs = 60_000,
    pred: (a: Answer) => boolean = (a) => a.status === 404 || a.body?.status !== 'pending',
  ): Promise<Answer> {
    return followEnd<Answer>({
      what: `job ${id} to be done`,
      read: () => this.job(id),
      ended: pred,
      describe: (a) => `${a.status} ${a.text}; its log:\n${this.log.slice(-3000)}`,
      timeoutMs,
    });
  }

  /** Sends a signal and waits for the exit (bounded; SIGKILL after timeoutMs). */
  async kill(signal: NodeJS.Signals, timeoutMs = 30_000) {
    if (!this.exited) this.child.kill(signal);
    const t = setTimeout(() => this.child.kill('SIGKILL'), timeoutMs);
    const r = await this.exit;
    clearTimeout(t);
    return r;
  }

  /** Ends the service whatever its state, and any Chromium or ffmpeg it left behind. */
  async stop(): Promise<void> {
    const orphans = descendants(this.pid);
    if (!this.exited) await this.kill('SIGKILL', 5_000);
    for (const p of orphans) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }

  /** Live descendant processes of the service. */
  descendants(): Proc[] {
    return descendants(this.pid);
  }

  /** Peak resident set of the service's Node process (VmHWM), bytes. */
  peakRss(): number {
    return statusField(this.pid, 'VmHWM');
  }

  rss(): number {
    return statusField(this.pid, 'VmRSS');
  }
}

export interface Proc {
  pid: number;
  ppid: number;
  comm: string;
  cmdline: string;
}

function readProc(pid: number): Proc | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const rest = stat.slice(close + 2).split(' ');
    if (rest[0] === 'Z') return null; // zombie: already dead
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    return { pid, ppid: Number(rest[1]), comm, cmdline };
  } catch {
    return null;
  }
}

/** Every live process below root (children, grandchildren, ...). */
export function descendants(root: number): Proc[] {
  const all: Proc[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const p = readProc(Number(name));
    if (p) all.push(p);
  }
  const out: Proc[] = [];
  const seen = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const p of all) {
      if (!seen.has(p.pid) && seen.has(p.ppid)) {
        seen.add(p.pid);
        out.push(p);
        grew = true;
      }
    }
  }
  return out;
}

/** The Chromium browser process (not a renderer, GPU or utility child) below root. */
export function browserProcess(root: number): Proc | undefined {
  return descendants(root).find((p) => /chrom/i.test(p.comm) && !p.cmdline.includes('--type='));
}

export function rendererProcesses(root: number): Proc[] {
  return descendants(root).filter((p) => p.cmdline.includes('--type=renderer'));
}

/** Chromium's GPU process (what draws every page's WebGL), found by its command line. */
export function gpuProcesses(root: number): Proc[] {
  return descendants(root).filter((p) => p.cmdline.includes('--type=gpu-process'));
}

export function ffmpegProcesses(root: number): Proc[] {
  return descendants(root).filter((p) => p.comm === 'ffmpeg');
}

function statusField(pid: number, field: string): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

export const SQUARE = (fill = '#ff3399') => `runner "0.0.3";
use std.shapes.*;
scene sq() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  let fg = rect(width: 120px, height: 120px, fill: ${fill});
  compose [bg, fg]
}
`;

/** A video scene whose every frame differs (a looping move): with a long duration it renders for as long as a test
 * needs to kill something mid-job. */
export const MOVING = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene moving(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -400px, 1s => 400px } with { repeat: forever };
  let bg = rect(width: 1920px, height: 1080px, fill: #000000);
  let fg = rect(width: 200px, height: 200px, fill: #ffffff).translate(x: x);
  compose [bg, fg]
}
`;
