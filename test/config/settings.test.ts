// The settings of every process (src/config/settings.ts): each default is the one docs/configuration.md shows and
// the one the service had before the schema; one set of boolean spellings; every integer at and just past its
// edge; a bad value of any kind is one clear error naming the variable, its value and what it accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { repoRoot } from '../helpers/shared.js';
import {
  CLI_SETTINGS,
  CONFIG_DOC,
  RUNNER_SETTINGS,
  SERVICE_SETTINGS,
  defaultConfig,
  defaultRenderConcurrency,
  loadConfig,
  type Config,
} from '../../src/config/settings.js';
import { ConfigError, FALSE_WORDS, TRUE_WORDS, entriesOf, readSettings } from '../../src/config/setting.js';

/** Rows of a generated table of docs/configuration.md: variable -> default as shown. */
function documentedDefaults(marker: string): Map<string, string> {
  const doc = readFileSync(join(repoRoot, 'docs', 'configuration.md'), 'utf8');
  const m = new RegExp(`<!-- ${marker}:start -->\\n([\\s\\S]*?)\\n<!-- ${marker}:end -->`).exec(doc);
  assert.ok(m, `${marker} markers present`);
  const rows = new Map<string, string>();
  for (const line of m[1]!.split('\n').slice(2)) {
    const [, name, shown] = /^\| `([A-Z0-9_]+)` \| (.*?) \| /.exec(line)!;
    rows.set(name!, shown!);
  }
  return rows;
}

/** The value an operator gets by writing the documented default ("(empty…)": leaving it unset; "0 (no limit)": 0). */
function rawOf(shown: string): string | undefined {
  if (shown.startsWith('(empty')) return undefined;
  return / \(/.test(shown) ? shown.slice(0, shown.indexOf(' (')) : shown;
}

test('every setting of the service and the command line is in docs/configuration.md, its default as documented', () => {
  const d = defaultConfig() as Record<string, unknown>;
  for (const [marker, schema] of [
    ['config-table', SERVICE_SETTINGS],
    ['cli-config-table', CLI_SETTINGS],
  ] as const) {
    const rows = documentedDefaults(marker);
    const defaults = readSettings(schema, {}) as Record<string, unknown>;
    assert.equal(rows.size, Object.keys(schema.shape).length, `${marker}: one row per setting`);
    for (const { key, meta } of entriesOf(schema)) {
      const env = meta.env;
      const shown = rows.get(env);
      assert.ok(shown !== undefined, `${env} documented`);
      if (env === 'RENDER_CONCURRENCY') {
        assert.equal(shown, 'one per 4 cores, at least 1');
        assert.equal(defaults[key], defaultRenderConcurrency());
        continue;
      }
      const raw = rawOf(shown);
      const written = readSettings(
        z.object({ [key]: (schema.shape as Record<string, z.ZodType>)[key]! }),
        raw === undefined ? {} : { [env]: raw },
      );
      assert.deepEqual((written as Record<string, unknown>)[key], defaults[key], `${env}: documented ${shown}`);
      if (marker === 'config-table') assert.deepEqual(defaults[key], d[key], `${env}: defaultConfig()`);
    }
  }
});

test('the defaults are those the service had before the schema (the hand-written defaultConfig of d7952b0)', () => {
  const before: Omit<Config, 'renderConcurrency'> = {
    port: 3000,
    host: '127.0.0.1',
    dataDir: resolve('data'),
    logLevel: 'info',
    jobTimeoutMs: 15 * 60 * 1000,
    frameBudgetMs: 60_000,
    retentionMs: 24 * 60 * 60 * 1000,
    chromiumPath: '/usr/bin/chromium',
    renderGl: 'auto',
    renderEncoder: 'x264',
    ffmpegPath: 'ffmpeg',
    maxQueuedJobs: 1000,
    maxEndedJobs: 10_000,
    outputMaxBytes: 10 * 1024 * 1024 * 1024,
    assetsMaxBytes: 1024 * 1024 * 1024,
    diskMinFreeBytes: 100 * 1024 * 1024,
    requestTimeoutMs: 60_000,
    headersTimeoutMs: 10_000,
    maxConnections: 0,
    maxConcurrentUploads: 4,
    shutdownGraceMs: 10_000,
    webhookAllow: [],
    webhookRetryMs: [2_000, 5_000, 15_000, 30_000, 60_000],
    webhookTimeoutMs: 10_000,
    webhookConcurrency: 16,
    testConcurrency: 2,
    uploadMaxBytes: 10 * 25 * 1024 * 1024 + 1024 * 1024,
    metricsPort: null,
    redisUrl: '',
    stalledIntervalMs: 30_000,
    storageUrl: 'file:',
    renderCache: true,
    s3ForcePathStyle: false,
    storagePublicUrls: 'stream',
    storageRequestTimeoutMs: 5_000,
    storageDeadlineMs: 15_000,
    metrics: true,
    readyMaxEventLoopDelayMs: 1000,
    apiKeys: '',
    apiKeysReads: false,
    rateLimitPosts: 0,
    rateLimitWindowMs: 60_000,
    batchMaxRows: 1000,
    maxQueuedJobsPerClient: 0,
  };
  assert.deepEqual(defaultConfig(), { ...before, renderConcurrency: defaultRenderConcurrency() });
  assert.equal(CONFIG_DOC.length, 45);
  // the runner is the service's settings on port 8080
  assert.equal(loadConfig({}, RUNNER_SETTINGS).port, 8080);
  assert.equal(loadConfig({ PORT: '9000' }, RUNNER_SETTINGS).port, 9000);
  assert.equal(loadConfig({ PORT: '' }, RUNNER_SETTINGS).port, 8080);
});

const FLAGS = CONFIG_DOC.filter((e) => e.accepts.startsWith('one of 1, true'));

test('every boolean takes one set of spellings, in any case; anything else names the variable, value and spellings', () => {
  assert.deepEqual(FLAGS.map((e) => e.env).sort(), [
    'API_KEYS_READS',
    'METRICS',
    'RENDER_CACHE',
    'S3_FORCE_PATH_STYLE',
  ]);
  for (const e of FLAGS) {
    for (const [words, value] of [
      [TRUE_WORDS, true],
      [FALSE_WORDS, false],
    ] as const)
      for (const w of words)
        for (const spelt of [w, w.toUpperCase(), w[0]!.toUpperCase() + w.slice(1)])
          assert.equal(loadConfig({ [e.env]: spelt })[e.key], value, `${e.env}=${spelt}`);
    assert.throws(
      () => loadConfig({ [e.env]: 'maybe' }),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message === `${e.env} must be one of 1, true, on, yes, 0, false, off, no (any case), got "maybe"`,
    );
    assert.throws(() => loadConfig({ [e.env]: '2' }), new RegExp(`^ConfigError: ${e.env} must be one of`));
  }
  // an empty value is unset (the default), as before
  assert.equal(loadConfig({ RENDER_CACHE: '' }).renderCache, true);
});

test('every integer setting: its least value is taken, one less is refused with what it accepts', () => {
  const ints = CONFIG_DOC.filter((e) => e.accepts.startsWith('an integer of at least'));
  assert.equal(ints.length, 28);
  // RENDER_CONCURRENCY=0 is taken only beside REDIS_URL (below)
  const env = { REDIS_URL: 'redis://127.0.0.1:6379' };
  for (const e of ints) {
    const min = Number(/at least (\d+)/.exec(e.accepts)![1]);
    assert.equal(loadConfig({ ...env, [e.env]: String(min) })[e.key], min, `${e.env}=${min}`);
    assert.throws(
      () => loadConfig({ ...env, [e.env]: String(min - 1) }),
      (err: Error) =>
        err instanceof ConfigError &&
        err.message === `${e.env} must be an integer of at least ${min}, got "${min - 1}"`,
      `${e.env}=${min - 1}`,
    );
    for (const bad of ['1.5', 'abc', '12px'])
      assert.throws(() => loadConfig({ ...env, [e.env]: bad }), new RegExp(`${e.env} must be an integer`));
  }
  assert.deepEqual(loadConfig({ WEBHOOK_RETRY_MS: '0, 10,,20' }).webhookRetryMs, [0, 10, 20]);
  assert.throws(
    () => loadConfig({ WEBHOOK_RETRY_MS: '10,-1' }),
    /^ConfigError: WEBHOOK_RETRY_MS must be comma-separated integers of at least 0, got "10,-1"$/,
  );
  assert.throws(() => loadConfig({ RENDER_CONCURRENCY: '0' }), /RENDER_CONCURRENCY=0 .*needs REDIS_URL/);
  assert.equal(loadConfig({ METRICS_PORT: '0' }).metricsPort, 0);
  assert.throws(() => loadConfig({ METRICS_PORT: '-1' }), /METRICS_PORT must be an integer of at least 0, got "-1"/);
});

test('every word setting takes its words only, and says which', () => {
  const cases: [string, string, string][] = [
    ['RENDER_GL', 'vulkan', 'one of auto, egl, swiftshader'],
    ['RENDER_ENCODER', 'qsv', 'one of x264, nvenc'],
    ['STORAGE_PUBLIC_URLS', 'signed', 'one of stream, presigned'],
    ['LOG_LEVEL', 'verbose', 'one of fatal, error, warn, info, debug, trace, silent'],
    ['STORAGE_URL', 'http://bucket', 'file: or s3://bucket[/prefix]'],
  ];
  for (const [env, bad, accepts] of cases)
    assert.throws(
      () => loadConfig({ [env]: bad }),
      (err: Error) => err instanceof ConfigError && err.message === `${env} must be ${accepts}, got "${bad}"`,
    );
  assert.equal(loadConfig({ STORAGE_URL: 's3://b/p' }).storageUrl, 's3://b/p');
  assert.equal(loadConfig({ RENDER_GL: 'egl' }).renderGl, 'egl');
});

test('several bad values: one error naming each', () => {
  assert.throws(
    () => loadConfig({ PORT: 'x', METRICS: 'perhaps', RENDER_GL: 'metal' }),
    (err: Error) =>
      err.message ===
      'PORT must be an integer of at least 0, got "x"; RENDER_GL must be one of auto, egl, swiftshader, got "metal"; METRICS must be one of 1, true, on, yes, 0, false, off, no (any case), got "perhaps"',
  );
});
