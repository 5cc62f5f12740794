// The service started as `npm start` starts it (src/entry/server.ts, a child process), in both modes: it binds where
// it is told (HOST defaults to 127.0.0.1 whatever the machine, even one with /.dockerenv; the lines say the address
// actually bound), a job POSTed as soon as /healthz answers (while /readyz still says `starting`) is accepted (202,
// pending, a place in the queue) and renders once the renderer is warm, and the start says where its time went.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ownExample } from '../helpers/app.js';
import { pollJob } from '../helpers/job-client.js';
import { onLogLines, spawnService } from '../helpers/service-spawn.js';
import { TestRedis } from '../helpers/redis.js';
import { loadConfig } from '../../src/config/settings.js';
import { until } from '../helpers/until.js';

interface Service {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** resolves with the first log line whose msg matches */
  line(msg: RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** lets Chromium start: until then every launch waits, so the renderer stays warming up */
  letWarm(): void;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Starts the service with Chromium behind a gate: a wrapper that waits for a file before it runs the real binary, so
 * the warm-up lasts until the test has made its POST (else a quick warm-up could end between /readyz and the POST).
 */
function start(env: Record<string, string | undefined>): Service {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-start-'));
  dirs.push(dataDir);
  const gate = join(dataDir, 'chromium-may-start');
  const wrapper = join(dataDir, 'chromium-behind-gate.sh');
  const real = loadConfig(process.env).chromiumPath;
  writeFileSync(wrapper, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec '${real}' "$@"\n`, {
    mode: 0o755,
  });
  const child = spawnService('api', {
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    CHROMIUM_PATH: wrapper,
    ...env,
  });
  children.push(child);
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  onLogLines(child.stdout!, (l) => lines.push(l));
  const line = async (msg: RegExp, timeoutMs = 120_000) => {
    let found: Record<string, unknown> | undefined;
    await until(
      () => `a line ${msg}: ${stderr}`,
      () => (found = lines.find((l) => msg.test(String(l.msg)))) !== undefined || child.exitCode !== null,
      timeoutMs,
    );
    if (!found) throw new Error(`the service exited ${child.exitCode} before a line ${msg}: ${stderr}`);
    return found;
  };
  return { child, lines, line, letWarm: () => writeFileSync(gate, '') };
}

/** Asks /healthz until it answers 200 (bounded); the first answer is the moment a script would POST. */
async function healthy(base: string): Promise<void> {
  // a fixed quick poll: the warm-up it catches is short
  await until('/healthz 200', async () => (await fetch(`${base}/healthz`)).status === 200, {
    timeoutMs: 60_000,
    pollMs: 10,
  });
}

/** `places`: the queue positions a job posted during warm-up may read (embedded: first in line, 1). */
async function postDuringWarmUp(s: Service, base: string, places: readonly number[] = [1]): Promise<void> {
  await healthy(base);
  const readyz = await fetch(`${base}/readyz`);
  const body = (await readyz.json()) as { code: string };
  // a recorded fact, so the test proves what it says: the renderer was still warming up when the POST was made
  assert.equal(readyz.status, 503);
  assert.equal(body.code, 'starting');
  const r = await fetch(`${base}/v1/frame`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ source: ownExample('hello.cm'), params: { width: 160 } }),
  });
  const posted = (await r.json()) as { job_id: string; status: string };
  assert.equal(r.status, 202, JSON.stringify(posted));
  assert.equal(posted.status, 'pending');
  // pending with its place: first in line (embedded), or already taken by the worker that waits for its renderer
  // (Redis: BullMQ hands the job over before the renderer is warm); nothing drawn yet either way
  const view = (await (await fetch(`${base}/v1/jobs/${posted.job_id}`)).json()) as Record<string, unknown>;
  assert.equal(view.status, 'pending');
  assert.ok(places.includes(view.queue_position as number), JSON.stringify(view));
  assert.ok(!view.progress, JSON.stringify(view));
  s.letWarm();
  const job = await pollJob(base, posted.job_id, 180_000);
  assert.equal(job.status, 'ready', JSON.stringify(job));
  assert.equal((await fetch(base + job.url)).headers.get('content-type'), 'image/png');
  // the ready line came after the job was taken, and says how long the start took and where the time went
  const ready = await s.line(/^cmrender ready in \d+ ms$/);
  const created = s.lines.findIndex((l) => l.event === 'job_created' && l.job_id === posted.job_id);
  assert.ok(created >= 0 && created < s.lines.indexOf(ready), 'the job was taken before the renderer was ready');
  assert.equal(typeof ready.ready_ms, 'number');
  const phases = ready.phases as Record<string, number>;
  for (const p of ['load', 'storage', 'services', 'listen', 'renderer']) assert.equal(typeof phases[p], 'number', p);
  assert.equal((await fetch(`${base}/readyz`)).status, 200);
}

test('embedded, HOST unset: binds 127.0.0.1 (and says so); a POST right after /healthz answers is taken during warm-up and renders', async () => {
  const s = start({ HOST: undefined });
  try {
    const warming = await s.line(/^cmrender warming up$/);
    assert.match(String(warming.address), /^http:\/\/127\.0\.0\.1:\d+$/);
    await postDuringWarmUp(s, String(warming.address));
    assert.equal((await s.line(/^cmrender listening$/)).address, warming.address);
  } finally {
    s.child.kill('SIGTERM');
    await once(s.child, 'exit');
  }
});

test('Redis mode, HOST=0.0.0.0: the lines say 0.0.0.0 (the address bound); a POST during warm-up is taken and renders', async () => {
  const redis = await TestRedis.start();
  const s = start({ HOST: '0.0.0.0', REDIS_URL: redis.url, RENDER_CONCURRENCY: '1' });
  try {
    const warming = await s.line(/^cmrender warming up$/);
    const m = /^http:\/\/0\.0\.0\.0:(\d+)$/.exec(String(warming.address));
    assert.ok(m, String(warming.address));
    await postDuringWarmUp(s, `http://127.0.0.1:${m[1]}`, [0, 1]);
  } finally {
    s.child.kill('SIGTERM');
    await once(s.child, 'exit');
    await redis.stop();
  }
});

test('HOST is 127.0.0.1 unless set, on any machine (a /.dockerenv or /run/.containerenv changes nothing)', () => {
  assert.equal(loadConfig({}).host, '127.0.0.1');
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0');
});
