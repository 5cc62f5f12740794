// MAX_ENDED_JOBS is the same on both queue backends (test/helpers/backends.ts): on a service keeping two ended
// records, ended records evicted at the cap's edge. And retention on Redis (service.md "Jobs": an output's record goes
// RETENTION_MS after the output was written, however long the job waited), read from the deadlines Redis holds; the
// embedded service's retention is tested on an injected clock in jobs.test.ts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { forEachBackend } from '../../helpers/backends.js';
import { getJson, jobView, pollJob, postJson, PNG_SIGNATURE } from '../../helpers/job-client.js';
import { ownExample } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';
import { stepHeavy } from '../../helpers/step-heavy.js';
import { Redis } from 'ioredis';
import { KEY_PREFIX } from '../../../src/server/jobs/store/redis.js';

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

// Retention's moments on Redis: a record there expires by Redis's own clock (its TTL), which no test can move, so
// these cases read the deadline Redis was given instead of waiting for it. The embedded service's retention is the
// sweep on an injected clock (test/server/jobs/jobs.test.ts, "retention"), exact to the millisecond.
forEachBackend(
  `jobs with RETENTION_MS=${RETENTION_MS}`,
  { RETENTION_MS: String(RETENTION_MS) },
  (b) => {
    let redis: Redis;
    before(() => {
      redis = new Redis(b.redisUrl!, { lazyConnect: false, maxRetriesPerRequest: 1 });
    });
    after(() => redis?.disconnect());
    /** milliseconds the job's record still lives in Redis (-2: gone, -1: no deadline) */
    const ttlOf = (id: string) => redis.pttl(`${KEY_PREFIX}job:${id}`);

    test(`${b.name}: a ready frame's PNG downloads; its record is given RETENTION_MS from when the output was written, no more`, async () => {
      const [a, other] = b.apis;
      const posted = await postJson(a, '/v1/frame', FRAME);
      const done = await pollJob(other, posted.json.job_id);
      assert.equal(done.status, 'ready', JSON.stringify(done));
      const r = await fetch(`${a}${done.url}`);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'image/png');
      assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
      // completed_at is when the output was written: retention counts from there (the processes share this clock)
      const before = Date.now();
      const ttl = await ttlOf(done.job_id);
      const left = done.completed_at + RETENTION_MS;
      assert.ok(
        ttl > 0 && ttl <= left - before,
        `the record lives until ${left}, not past it (ttl ${ttl} ms at ${before})`,
      );
      assert.ok(ttl >= left - Date.now() - 1_000, `and not much less (ttl ${ttl} ms)`);
    });

    test(`${b.name}: retention counts from the output's writing: a frame waiting behind a GIF keeps its record alive while it waits, ends ready and downloads`, async () => {
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
      // a pending record once expired 2 x RETENTION_MS after its creation while its job still waited: now its
      // deadline is moved on while it waits (every RETENTION_MS / 4, at least every second), so it never comes
      let first = 0;
      let moved = 0;
      await until(
        () => `the waiting frame's deadline to move on (ttl ${first} ms, then ${moved} ms)`,
        async () => {
          const ttl = await ttlOf(posted.json.job_id);
          assert.ok(ttl > 0, `the waiting record has a deadline (ttl ${ttl})`);
          if (!first) first = ttl;
          moved = ttl;
          return ttl > first;
        },
        { timeoutMs: 30_000, pollMs: 100 },
      );
      // its end is read from its events stream, opened before the GIF goes
      const events = await fetch(`${a}/v1/jobs/${posted.json.job_id}/events`, { signal: AbortSignal.timeout(90_000) });
      const cancelled = await fetch(`${other}/v1/jobs/${gif.json.job_id}`, { method: 'DELETE' });
      assert.equal(cancelled.status, 200, 'the GIF was still rendering');
      const text = await events.text();
      const end = /event: end\ndata: (.*)\n/.exec(text);
      assert.ok(end, text);
      const done = JSON.parse(end[1]!);
      assert.equal(done.status, 'ready', JSON.stringify(done));
      const r = await fetch(`${other}${done.url}`);
      assert.equal(r.status, 200);
      assert.deepEqual([...Buffer.from(await r.arrayBuffer()).subarray(0, 8)], PNG_SIGNATURE);
    });
  },
  ['redis'],
);
