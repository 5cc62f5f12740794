// Start-up figures, three runs each (`npm run bench:start [-- --dir CHECKOUT] [--runs N]`): `npm start` to /healthz
// answering, to /readyz ready, and to its first 960-wide frame (POSTed as soon as /healthz answers, again after any
// 503); `cmrender --help`; a 960-wide CLI frame (`cmrender render examples/hello.cm -o x.png --width 960`) and its
// first line of output. --dir runs them in another checkout (e.g. a worktree of an older commit, with its
// node_modules installed), so before and after are measured in one sitting on the same machine.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { repoRoot } from '../src/paths.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const dir = resolve(arg('--dir') ?? repoRoot);
const runs = Number(arg('--runs') ?? 3);
const hello = readFileSync(join(dir, 'examples', 'hello.cm'), 'utf8');

async function freePort(): Promise<number> {
  const srv = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => srv.once('listening', r));
  const port = (srv.address() as { port: number }).port;
  await new Promise((r) => srv.close(r));
  return port;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function status(url: string, init?: RequestInit): Promise<Response | null> {
  return fetch(url, init).catch(() => null);
}

/** npm start → /healthz 200, /readyz 200, the first frame ready (ms from the spawn). */
async function startRun(): Promise<{ healthz: number; ready: number; frame: number }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-bench-start-'));
  const base = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const child = spawn('npm', ['start'], {
    cwd: dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  const since = () => Math.round(performance.now() - t0);
  try {
    const deadline = Date.now() + 600_000;
    const until = async (ok: () => Promise<boolean>) => {
      while (!(await ok())) {
        if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not get there');
        await sleep(25);
      }
      return since();
    };
    const healthz = await until(async () => (await status(`${base}/healthz`))?.status === 200);
    // a script that waited for /healthz posts now (and again after a 503, the way d7952b0 answered during warm-up)
    let job: string | undefined;
    let ready = 0;
    const readyz = (async () => (ready = await until(async () => (await status(`${base}/readyz`))?.status === 200)))();
    await until(async () => {
      const r = await status(`${base}/v1/frame`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ source: hello, params: { width: 960 } }),
      });
      if (r?.status === 202) job = ((await r.json()) as { job_id: string }).job_id;
      return job !== undefined;
    });
    const frame = await until(async () => {
      const r = await status(`${base}/v1/jobs/${job}`);
      const view = r ? ((await r.json()) as { status: string }) : { status: 'pending' };
      if (view.status === 'error') throw new Error('the frame failed');
      return view.status === 'ready';
    });
    await readyz;
    return { healthz, ready, frame };
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone already
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A CLI call: total ms and ms to its first byte of output. */
function cliRun(args: string[]): Promise<{ total: number; first: number; code: number }> {
  return new Promise((resolvePromise, reject) => {
    const t0 = performance.now();
    let first = -1;
    const child = spawn(process.execPath, [join(dir, 'bin', 'cmrender.js'), ...args], { cwd: dir });
    const mark = () => {
      if (first < 0) first = Math.round(performance.now() - t0);
    };
    child.stdout.on('data', mark);
    child.stderr.on('data', mark);
    child.on('error', reject);
    child.on('exit', (code) => resolvePromise({ total: Math.round(performance.now() - t0), first, code: code ?? -1 }));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const show = (name: string, xs: number[]) =>
  console.log(`${name.padEnd(34)} ${xs.map((x) => String(x).padStart(7)).join(' ')}   median ${median(xs)} ms`);

console.log(`bench:start in ${dir}, ${runs} runs each (ms)`);
const starts = [];
for (let i = 0; i < runs; i++) starts.push(await startRun());
show(
  'npm start → /healthz',
  starts.map((s) => s.healthz),
);
show(
  'npm start → ready (/readyz 200)',
  starts.map((s) => s.ready),
);
show(
  'npm start → first 960-wide frame',
  starts.map((s) => s.frame),
);
const helps = [];
for (let i = 0; i < runs; i++) helps.push(await cliRun(['--help']));
show(
  'cmrender --help',
  helps.map((h) => h.total),
);
const out = join(mkdtempSync(join(tmpdir(), 'cmrender-bench-cli-')), 'frame.png');
const frames = [];
for (let i = 0; i < runs; i++) {
  const r = await cliRun(['render', join(dir, 'examples', 'hello.cm'), '-o', out, '--width', '960']);
  if (r.code !== 0) throw new Error(`cmrender render exited ${r.code}`);
  frames.push(r);
}
show(
  'cmrender render (960 wide)',
  frames.map((f) => f.total),
);
show(
  'cmrender render: first output',
  frames.map((f) => f.first),
);
rmSync(join(out, '..'), { recursive: true, force: true });
