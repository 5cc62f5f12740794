// TEST_CONCURRENCY (issue 24): GET /test renders synchronously outside the job queue's cap, so it has its own: at
// most that many at once; the next is refused 503 too_many_tests with retry-after before anything is drawn.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { startApp, FakeRenderer, gate, type TestApp } from '../../helpers/app.js';
import { until } from '../../helpers/until.js';

let t: TestApp | undefined;
after(() => t?.close());

test('TEST_CONCURRENCY=2: two GET /test at once are drawn, a third is 503 too_many_tests; a freed slot serves again', async () => {
  const fake = new FakeRenderer();
  const hold = gate();
  fake.behaviour = () => hold.promise;
  // two render slots, so both held renders reach the renderer and the test can see them there
  t = await startApp({ renderer: fake, config: { testConcurrency: 2, renderConcurrency: 2 } });
  const app = t.app;

  // at the edge: two in progress
  const first = [app.inject({ url: '/test' }), app.inject({ url: '/test' })];
  await until(
    () => `two GET /test renders started (${fake.calls.length} did)`,
    () => fake.calls.length >= 2,
    20_000,
  );

  // just past it: refused at once, in the envelope, and never drawn
  const over = await app.inject({ url: '/test' });
  assert.equal(over.statusCode, 503);
  assert.deepEqual(over.json(), {
    error: 'too many GET /test renders at once (at most 2); retry shortly',
    code: 'too_many_tests',
  });
  assert.equal(over.headers['retry-after'], '1');
  assert.equal(fake.calls.length, 2);

  hold.open();
  for (const r of await Promise.all(first)) {
    assert.equal(r.statusCode, 200);
    assert.equal(r.headers['content-type'], 'image/png');
  }
  const again = await app.inject({ url: '/test' });
  assert.equal(again.statusCode, 200, 'the slots are given back');
  assert.equal(fake.calls.length, 3);
});
