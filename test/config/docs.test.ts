// The README's set-up commands are what .ci/run and the workflow install and run; every variable a process reads goes
// through src/config (whose table test/config/configuration-doc.test.ts checks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/app.js';
import { loadConfig, defaultConfig, defaultRenderConcurrency } from '../../src/config/settings.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');

test('no module of src/ reads a variable of the environment by name: every setting goes through src/config', () => {
  const reads: string[] = [];
  const walk = (d: string) => {
    for (const f of readdirSync(d)) {
      const p = join(d, f);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts'))
        for (const m of readFileSync(p, 'utf8').matchAll(/process\.env(?:\.([A-Z_]+)|\[)/g))
          reads.push(`${p}: ${m[0]}`);
    }
  };
  walk(join(repoRoot, 'src'));
  assert.deepEqual(reads, []);
});

test('configuration: defaults and parsing', () => {
  const d = loadConfig({});
  assert.equal(d.port, 3000);
  assert.equal(d.renderConcurrency, defaultRenderConcurrency());
  // one render slot per 4 cores, at least one: 2 cores (CI) -> 1, 16 -> 4
  assert.deepEqual([1, 2, 4, 7, 8, 16, 64].map(defaultRenderConcurrency), [1, 1, 1, 1, 2, 4, 16]);
  assert.equal(d.jobTimeoutMs, 15 * 60 * 1000);
  assert.equal(d.retentionMs, 24 * 3600 * 1000);
  assert.equal(d.host, defaultConfig().host);
  const c = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATA_DIR: '/tmp/x',
    RENDER_CONCURRENCY: '3',
    LOG_LEVEL: 'warn',
    JOB_TIMEOUT_MS: '1000',
  });
  assert.deepEqual(
    [c.port, c.host, c.dataDir, c.renderConcurrency, c.logLevel, c.jobTimeoutMs],
    [8080, '0.0.0.0', '/tmp/x', 3, 'warn', 1000],
  );
  assert.throws(() => loadConfig({ RENDER_CONCURRENCY: '0' }), /RENDER_CONCURRENCY=0 .*needs REDIS_URL/);
  // with Redis, 0 is an API process that renders nothing; below 0 never
  const api = loadConfig({ RENDER_CONCURRENCY: '0', REDIS_URL: 'redis://127.0.0.1:6379' });
  assert.deepEqual([api.renderConcurrency, api.redisUrl, api.stalledIntervalMs], [0, 'redis://127.0.0.1:6379', 30000]);
  assert.throws(() => loadConfig({ RENDER_CONCURRENCY: '-1', REDIS_URL: 'redis://x' }), /RENDER_CONCURRENCY/);
  assert.equal(loadConfig({ STALLED_INTERVAL_MS: '500' }).stalledIntervalMs, 500);
  assert.throws(() => loadConfig({ STALLED_INTERVAL_MS: '499' }), /STALLED_INTERVAL_MS/);
  assert.throws(() => loadConfig({ PORT: 'abc' }), /PORT/);
  assert.deepEqual(
    [d.webhookAllow, d.webhookRetryMs, d.webhookTimeoutMs],
    [[], [2000, 5000, 15000, 30000, 60000], 10000],
  );
  const w = loadConfig({
    WEBHOOK_ALLOW: '127.0.0.0/8, localhost,,',
    WEBHOOK_RETRY_MS: '10,20',
    WEBHOOK_TIMEOUT_MS: '500',
  });
  assert.deepEqual(
    [w.webhookAllow, w.webhookRetryMs, w.webhookTimeoutMs],
    [['127.0.0.0/8', 'localhost'], [10, 20], 500],
  );
  assert.throws(() => loadConfig({ WEBHOOK_RETRY_MS: '10,x' }), /WEBHOOK_RETRY_MS/);
});

test("README set-up: its test command is what .ci/run runs, its packages are .ci/run's, the workflow runs .ci/run", () => {
  const blocks = [...readme.matchAll(/```sh setup\n([\s\S]*?)```/g)].map((m) => m[1]!.trim());
  assert.equal(blocks.length, 2);
  const [start, tests] = blocks as [string, string];
  assert.match(start, /apt-get install -y .*chromium ffmpeg.*npm ci && npm start$/);
  assert.equal(tests, 'npm test');
  const ciText = readFileSync(join(repoRoot, '.ci', 'run'), 'utf8');
  const ci = ciText.trim().split('\n');
  // every Debian package .ci/run installs (by its command check or its dpkg list) is on the README's apt line
  const aptLine = /--no-install-recommends ([a-z0-9. -]+?) &&/.exec(start)![1]!.split(' ').sort();
  const ciPackages = [
    ...[...ciText.matchAll(/missing\+=\(([a-z0-9-]+)\)/g)].map((m) => m[1]!),
    .../for pkg in ([a-z0-9 -]+); do/.exec(ciText)![1]!.split(' '),
  ];
  assert.deepEqual([...new Set(ciPackages)].sort(), aptLine);
  assert.equal(ci[ci.length - 1], 'npm test </dev/null');
  assert.match(ci.join('\n'), /set -euo pipefail/);
  assert.match(ci.join('\n'), /npm ci/);
  const wf = readFileSync(join(repoRoot, '.github', 'workflows', 'ci.yml'), 'utf8');
  assert.match(wf, /run: bash \.ci\/run/);
});
