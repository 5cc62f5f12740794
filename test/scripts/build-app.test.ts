// The compiled service and CLI (`npm run build` → dist/app) in the layout of the Docker image's final stage: a
// folder with package.json, bin/, dist/ and node_modules, and no src/. Run with plain `node`: no tsx loader.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../../scripts/build-app.js';
import { buildViewer } from '../../scripts/build-viewer.js';
import { repoRoot, ownExamplesDir } from '../helpers/shared.js';
import { pollJob, PNG_SIGNATURE } from '../helpers/job-client.js';
import { spawnService } from '../helpers/service-spawn.js';

const image = mkdtempSync(join(tmpdir(), 'cmrender-image-'));
after(() => rmSync(image, { recursive: true, force: true }));
copyFileSync(join(repoRoot, 'package.json'), join(image, 'package.json'));
cpSync(join(repoRoot, 'bin'), join(image, 'bin'), { recursive: true });
symlinkSync(join(repoRoot, 'node_modules'), join(image, 'node_modules'));
mkdirSync(join(image, 'dist'));
await buildApp(join(image, 'dist', 'app'));
await buildViewer(join(image, 'dist', 'viewer'));

/** `cmrender ARGS` in the image layout, `input` on standard input. */
function cmrender(args: string[], input: string) {
  return spawnSync(process.execPath, [join(image, 'bin', 'cmrender.js'), ...args], {
    input,
    encoding: 'utf8',
    cwd: image,
    env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1' },
  });
}

test('compiled CLI: `cmrender check -` reads standard input; ok exits 0, an error exits 1 with the caret', () => {
  const ok = cmrender(['check', '-'], readFileSync(join(ownExamplesDir, 'hello.cm'), 'utf8'));
  assert.equal(ok.status, 0, ok.stderr);
  assert.equal(ok.stdout, 'ok: -\n');
  // no glob import: under one, an unknown name given as an argument is a warning (issue 37)
  const bad = cmrender(['check', '-'], 'use std.shapes.rect;\nscene s() -> Frame {\n  rect(width: nope)\n}\n');
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /^-:3:15: error\[NAM003\]/);
  assert.ok(bad.stderr.includes('3 |   rect(width: nope)\n  |               ^^^^\n'), bad.stderr);
  assert.match(bad.stderr, /1 error\n$/);
});

test('compiled server: `node dist/app/server.js` listens, renders a PNG, exits 0 on SIGTERM', async () => {
  const dataDir = join(image, 'data');
  // the image's own build, with no tsx loader from the test's environment
  const child = spawnService(
    'api',
    { NODE_OPTIONS: '', PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
    { root: image },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = once(child, 'exit');
  const base = await new Promise<string>((resolve, reject) => {
    let buf = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const m = /"address":"(http:\/\/[^"]+)"[^\n]*"msg":"cmrender listening"/.exec(buf);
      if (m) resolve(m[1]!);
    });
    child.on('exit', (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  try {
    assert.equal(await (await fetch(`${base}/healthz`)).text(), 'ok\n');
    const source = readFileSync(join(ownExamplesDir, 'hello.cm'), 'utf8');
    const posted = await fetch(`${base}/v1/frame`, {
      method: 'POST',
      body: JSON.stringify({ source, params: { width: 320 } }),
    });
    assert.equal(posted.status, 202);
    const { job_id } = (await posted.json()) as { job_id: string };
    const job = (await pollJob(base, job_id)) as { status: string; url: string };
    assert.equal(job.status, 'ready', JSON.stringify(job));
    const png = Buffer.from(await (await fetch(base + job.url)).arrayBuffer());
    assert.deepEqual([...png.subarray(0, 8)], PNG_SIGNATURE);
  } finally {
    child.kill('SIGTERM');
  }
  const [code] = await exited;
  assert.equal(code, 0, stderr);
});
