// A bad setting stops each built process before it starts anything: exit code 2 and one line naming the variable,
// its value and what it accepts (the service, a worker, the runner and `cmrender render` alike).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';
import { runServiceToEnd } from '../helpers/service-spawn.js';

const dir = mkdtempSync(join(tmpdir(), 'cmrender-startup-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ENV = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: join(dir, 'data') };

/** Runs a built entry point (dist/app) with `env` over a clean data dir; it must end on its own. */
const run = (role: 'api' | 'worker' | 'runner', env: Record<string, string>) =>
  runServiceToEnd(role, { ...ENV, ...env }, { cwd: dir });

/** The fatal JSON line of an entry point's refused start. */
function fatalLine(stdout: string): { level: number; msg: string; event: string } {
  const lines = stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { level: number; msg: string; event: string });
  assert.equal(lines.length, 1, stdout);
  return lines[0]!;
}

test('the service with a bad boolean: exit 2, one fatal line naming RENDER_CACHE, its value and the spellings', () => {
  const r = run('api', { RENDER_CACHE: 'maybe' });
  assert.equal(r.status, 2, r.stderr);
  const line = fatalLine(r.stdout);
  assert.equal(line.level, 60);
  assert.equal(line.event, 'config_invalid');
  assert.equal(
    line.msg,
    'cmrender could not start: RENDER_CACHE must be one of 1, true, on, yes, 0, false, off, no (any case), got "maybe"',
  );
  assert.equal(r.stderr, '');
});

test('a worker with a number past its edge: exit 2, naming STALLED_INTERVAL_MS', () => {
  const r = run('worker', { STALLED_INTERVAL_MS: '499', REDIS_URL: 'redis://127.0.0.1:1' });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(
    fatalLine(r.stdout).msg,
    'cmrender worker could not start: STALLED_INTERVAL_MS must be an integer of at least 500, got "499"',
  );
});

test('the runner with a bad word: exit 2, naming RENDER_GL and its words', () => {
  const r = run('runner', { RENDER_GL: 'vulkan' });
  assert.equal(r.status, 2, r.stderr);
  assert.equal(
    fatalLine(r.stdout).msg,
    'cmrender runner could not start: RENDER_GL must be one of auto, egl, swiftshader, got "vulkan"',
  );
});

test('cmrender render with a bad RENDER_GL: exit 2 and the error before anything is drawn', () => {
  const scene = join(dir, 'scene.cm');
  writeFileSync(scene, 'use std.shapes.*;\nscene s() -> Frame {\n  rect(width: 10px height: 10px)\n}\n');
  const r = spawnSync(
    process.execPath,
    [join(repoRoot, 'bin', 'cmrender.js'), 'render', scene, '-o', join(dir, 'out.png')],
    {
      encoding: 'utf8',
      cwd: dir,
      env: { ...process.env, ...ENV, RENDER_GL: 'vulkan' },
      timeout: 30_000,
    },
  );
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr, 'error: RENDER_GL must be one of auto, egl, swiftshader, got "vulkan"\n');
});
