// Mesh and vectorize jobs under the service's time limit and across a restart, like the drawn kinds: a job over
// JOB_TIMEOUT_MS ends in error and its worker thread is stopped (the next job still runs); jobs waiting when the
// service stops are in the journal, with an inline image kept as an asset, and render at the next start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startApp, exportRenderer, FakeRenderer, ownExample } from '../../helpers/app.js';
import { post, waitJob, runJob } from '../../helpers/job-client.js';
import { drawPng } from '../../export/helpers.js';
import { encodePng } from '../../../src/render/png.js';
import { until } from '../../helpers/until.js';

const MARK_SVG = /<svg[\s>][\s\S]*?<\/svg>/.exec(ownExample('svg-mark.cm'))![0];

test('a vectorize job over the time limit ends in error, leaves no partial file, and the next job renders', async () => {
  // the limit applies to the next job too: 15 s, not 3 s, so a loaded machine's next job (46 ms quiet; over 3 s
  // once, loaded, after the page was replaced) is not timed out; the trace below takes about a minute on a quiet one
  const t = await startApp({ renderer: exportRenderer(), config: { jobTimeoutMs: 15_000 } });
  try {
    // all ink at the largest working size: about a minute of tracing (58.8 s measured on a quiet 2-core machine)
    const side = 2048;
    const ink = encodePng(
      new Uint8Array(side * side * 4).map((_, i) => (i % 4 === 3 ? 255 : 0)),
      side,
      side,
    );
    const r = await runJob(t.app, '/v1/vectorize', {
      image: ink.toString('base64'),
      params: { maxDim: 2048, bridge: 64 },
    });
    assert.equal(r.json().status, 'error', r.body);
    assert.match(r.json().message, /timed out after 15 s/);
    assert.deepEqual(
      (await readdir(join(t.dataDir, 'outputs'))).filter((n) => n.endsWith('.tmp')),
      [],
    );
    const next = await runJob(t.app, '/v1/mesh', { source: MARK_SVG });
    assert.equal(next.json().status, 'ready', next.body);
  } finally {
    await t.close();
  }
});

test('mesh and vectorize jobs waiting when the service stops render after the restart (journal, inline image kept)', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-export-restart-'));
  try {
    const fake = new FakeRenderer();
    // the first job holds the only render slot until the service closes
    fake.behaviour = (_job, hooks) => new Promise<void>((res) => hooks.signal.addEventListener('abort', () => res()));
    const a = await startApp({ renderer: fake, config: { dataDir } });
    const blocker = await post(a.app, '/v1/frame', { source: ownExample('hello.cm') });
    assert.equal(blocker.statusCode, 202);
    const mesh = await post(a.app, '/v1/mesh', { source: MARK_SVG, params: { size: 30 } });
    const image = drawPng(
      [
        [
          [10, 10],
          [90, 90],
        ],
        [
          [10, 90],
          [90, 10],
        ],
      ],
      5,
      100,
      100,
    ).png.toString('base64');
    const vec = await post(a.app, '/v1/vectorize', { image });
    for (const r of [mesh, vec]) {
      assert.equal(r.statusCode, 202, r.body);
      assert.equal(
        (await a.app.inject({ url: `/v1/jobs/${r.json().job_id}` })).json().queue_position,
        1 + [mesh, vec].indexOf(r),
      );
    }
    await a.app.close();

    const b = await startApp({ renderer: exportRenderer(), config: { dataDir } });
    try {
      const m = (await waitJob(b.app, mesh.json().job_id)).json();
      assert.equal(m.status, 'ready', JSON.stringify(m));
      assert.equal(m.height, 30);
      const v = (await waitJob(b.app, vec.json().job_id)).json();
      assert.equal(v.status, 'ready', JSON.stringify(v));
      assert.equal(v.mime, 'image/svg+xml');
    } finally {
      await b.close();
    }
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('DELETE on a rendering vectorize job stops its worker thread at once: cancelled, no partial file, the next job renders', async () => {
  const t = await startApp({ renderer: exportRenderer() });
  try {
    const side = 2048;
    const ink = encodePng(
      new Uint8Array(side * side * 4).map((_, i) => (i % 4 === 3 ? 255 : 0)),
      side,
      side,
    );
    const r = await post(t.app, '/v1/vectorize', {
      image: ink.toString('base64'),
      params: { maxDim: 2048, bridge: 64 },
    });
    assert.equal(r.statusCode, 202, r.body);
    const id = r.json().job_id;
    // wait until it is in hand (queue_position 0), then cancel
    await until('the vectorize job in hand', async () => {
      return (await t.app.inject({ url: `/v1/jobs/${id}` })).json().queue_position === 0;
    });
    const del = await t.app.inject({ method: 'DELETE', url: `/v1/jobs/${id}` });
    assert.equal(del.statusCode, 200, del.body);
    assert.equal(del.json().code, 'cancelled');
    assert.deepEqual(
      (await readdir(join(t.dataDir, 'outputs'))).filter((n) => !n.endsWith('.glb')),
      [],
    );
    const next = await runJob(t.app, '/v1/mesh', { source: MARK_SVG });
    assert.equal(next.json().status, 'ready', next.body);
  } finally {
    await t.close();
  }
});
