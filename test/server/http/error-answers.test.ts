// The one way an error leaves (src/server/http/error-answers.ts): whatever the framework or a plugin throws, the
// answer's status is its code's registered one, so a client reading `code` never sees it under two statuses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';
import { answerError } from '../../../src/server/http/error-answers.js';
import { statusOf, type AnswerCode } from '../../../src/contract/error-codes.js';

/** A real Fastify app whose one route throws an error with the given framework status, answered by answerError. */
async function answerOf(statusCode: number): Promise<{ status: number; code: AnswerCode }> {
  const app = Fastify();
  app.setErrorHandler(answerError);
  app.get('/', async () => {
    throw Object.assign(new Error(`refused with ${statusCode}`), { statusCode });
  });
  try {
    const r = await app.inject({ url: '/' });
    return { status: r.statusCode, code: r.json().code };
  } finally {
    await app.close();
  }
}

test('a 413 the body limit did not catch is body_too_large at its registered 400, never 413', async () => {
  assert.deepEqual(await answerOf(413), { status: 400, code: 'body_too_large' });
});

test("every framework 4xx is answered at its code's registered status", async () => {
  for (const status of [400, 401, 403, 405, 406, 408, 409, 413, 415, 416, 418, 429]) {
    const a = await answerOf(status);
    assert.equal(a.status, statusOf(a.code), `${status} -> ${a.code} at ${a.status}`);
  }
  // the ones the registry has a status for keep it
  assert.deepEqual(await answerOf(405), { status: 405, code: 'method_not_allowed' });
  assert.deepEqual(await answerOf(415), { status: 415, code: 'unsupported_media_type' });
  assert.deepEqual(await answerOf(429), { status: 429, code: 'rate_limited' });
  // a status the registry has no plain code for is a bad request
  assert.deepEqual(await answerOf(418), { status: 400, code: 'bad_request' });
});
