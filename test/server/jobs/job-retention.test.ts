// Retention and MAX_ENDED_JOBS are the same on both queue backends (test/helpers/backends.ts): on a service keeping
// two ended records, ended records evicted at the cap's edge; on a service with a 4 s RETENTION_MS, what retention
// removes (a job and its output, 404) and when (service.md "Jobs": an output and its record go RETENTION_MS after
// the output was written, however long the job waited). Every case runs on both backends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBackend } from '../../helpers/backends.js';
import { getJson, jobView, pollJob, postJson, PNG_SIGNATURE } from '../../helpers/job-client.js';
import { ownExample } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { stepHeavy } from '../../helpers/step-heavy.js';

/** a retention short enough to pass in a test, and a cap of two ended records */
const RETENTION_MS = 4_000;
const ENDED_CAP = 2;
const FRAME = { source: ownExample('hello.cm'), params: { width: 320 } };
/** 1800 frames in one piece (a GIF is never cut in chunks): whatever waits behind it waits until it ends */
const LONG_GIF = { source: stepHeavy(13), params: { fps: 30, duration: 60, width: 480 } };

// the cap on its own service, with the default retention: under a 4 s RETENTION_MS a loaded machine's render of the
// next job outlasts the first one's retention, and retention, not the cap, took it (seen: 404 at the cap)
forEachBackend(`jobs with MAX_ENDED_JOBS=${ENDED_CAP}`, { MAX_ENDED_JOBS: String(ENDED_CAP) }, (b) => {
  test(`${b.name}: MAX_ENDED_JOBS at its edge: ${ENDED_CAP} ended jobs are all kept; one more ends and the first-ended goes (404, output 404), the newest ${ENDED_CAP} stay`, async () => {
    const [a, other] = b.apis;
    const ended: any[] = [];
    for (let i = 0; i <= ENDED_CAP; i++) {
      // one after the other: each has ended before the next is posted, so the order they ended in is known
      const posted = await postJson(i % 2 ? other : a, '/v1/frame', { ...FRAME, params: { width: 300 + i } });
      assert.equal(posted.status, 202, JSON.stringify(posted.json));
      const done = await pollJob(a, posted.json.job_id);
      assert.equal(done.status, 'ready', JSON.stringify(done));
      ended.push(done);
      if (i === ENDED_CAP - 1)
        for (const v of ended)
          assert.equal((await getJson(`${other}/v1/jobs/${v.job_id}`)).status, 200, `at the cap, ${v.job_id} is kept`);
    }
    const [first, ...newest] = ended;
    assert.ok(newest.every((v) => v.completed_at >= first.completed_at));
    // an end evicts in the background (ended-cap.ts: an end never waits), so the record goes soon after, not with it
    let gone = await getJson(`${other}/v1/jobs/${first.job_id}`);
    await until(
      () => `the first-ended job past the cap to go (last answer: ${gone.status} ${JSON.stringify(gone.json)})`,
      async () => (gone = await getJson(`${other}/v1/jobs/${first.job_id}`)).status === 404,
      30_000,
    );
    assert.equal(gone.json.error, 'not_found');
    assert.equal((await getJson(`${other}${first.url}`)).status, 404, 'its output goes with it');
    for (const v of newest) {
      assert.equal((await getJson(`${a}/v1/jobs/${v.job_id}`)).status, 200, `${v.job_id} is one of the newest`);
      assert.equal((await fetch(`${other}${v.url}`, { method: 'HEAD' })).status, 200);
    }
  });
});

forEachBackend(`jobs with RETENTION_MS=${RETENTION_MS}`, { RETENTION_MS: String(RETENTION_MS) }, (b) => {
  test(`${b.name}: a ready frame's PNG downloads; once RETENTION_MS has passed since it was written, the job and the file are 404`, async () => {
    const [a, other] = b.apis;
    const posted = await postJson(a, '/v1/frame', FRAME);
    const done = await pollJob(other, posted.json.job_id);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    const r = await fetch(`${a}${done.url}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'image/png');
    assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
    // completed_at is when the output was written: retention counts from there
    await until('RETENTION_MS has passed since the output was written', async () => {
      return Date.now() > done.completed_at + RETENTION_MS;
    });
    // the embedded service sweeps at start and then once a minute (retention.ts), Redis drops a record when its
    // TTL runs out: a restart makes the embedded sweep now, not up to a minute later
    await b.restartApis();
    const job = await getJson(`${b.apis[1]}/v1/jobs/${done.job_id}`);
    assert.equal(job.status, 404, JSON.stringify(job.json));
    assert.equal(job.json.error, 'not_found');
    const file = await getJson(`${b.apis[0]}${done.url}`);
    assert.equal(file.status, 404, JSON.stringify(file.json));
  });

  test(`${b.name}: retention counts from the output's writing: a frame that waited behind a GIF for longer than twice RETENTION_MS is still there, ends ready and downloads`, async () => {
    const [a, other] = b.apis;
    const gif = await postJson(a, '/v1/gif', LONG_GIF);
    assert.equal(gif.status, 202, JSON.stringify(gif.json));
    // (or no longer pending: the assertions below then say what it is)
    await until('the GIF renders', async () => {
      const v = await jobView(a, gif.json.job_id);
      return v.status !== 'pending' || v.queue_position === 0;
    });
    const posted = await postJson(other, '/v1/frame', FRAME);
    const waiting = await getJson(`${a}/v1/jobs/${posted.json.job_id}`);
    assert.deepEqual([waiting.status, waiting.json.status], [200, 'pending'], JSON.stringify(waiting.json));
    // twice RETENTION_MS and more: a pending record in Redis once expired then, while its job still waited
    await until('the frame has waited longer than twice RETENTION_MS', async () => {
      return Date.now() > waiting.json.created_at + 2 * RETENTION_MS + 1_000;
    });
    // a pending job has no output yet: nothing of it has expired
    const still = await getJson(`${a}/v1/jobs/${posted.json.job_id}`);
    assert.deepEqual([still.status, still.json.status], [200, 'pending'], JSON.stringify(still.json));
    // its end is read from its events stream, opened before the GIF goes: polling could come back after the output's
    // own RETENTION_MS (4 s) on a loaded machine and find nothing
    const events = await fetch(`${a}/v1/jobs/${posted.json.job_id}/events`, { signal: AbortSignal.timeout(90_000) });
    const cancelled = await fetch(`${other}/v1/jobs/${gif.json.job_id}`, { method: 'DELETE' });
    assert.equal(cancelled.status, 200, 'the GIF was still rendering');
    const text = await events.text();
    const end = /event: end\ndata: (.*)\n/.exec(text);
    assert.ok(end, text);
    const done = JSON.parse(end[1]!);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.ok(done.completed_at - done.created_at > 2 * RETENTION_MS, JSON.stringify(done));
    const r = await fetch(`${other}${done.url}`);
    assert.equal(r.status, 200);
    assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
  });
});
