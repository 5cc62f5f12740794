// Idempotency-Key with REDIS_URL: the key lives in Redis, so one key sent to two API processes makes one job (each
// process kept its own index before: two jobs). The first request claims the key with SET NX (its hash and "no job
// yet"), creates the job and writes the job id under the key; a request that finds the key with the same hash
// answers that job (waiting while the first one is still creating it), with another hash 422 idempotency_mismatch.
// A failed creation deletes its claim, so the client may retry with the key; a key whose job's record is gone is
// free again; the key expires with the job (idempotencyTtl).
import { createHash, randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { mismatch, type IdempotencyKeys } from '../jobs/idempotency.js';
import { KEY_PREFIX } from '../jobs/store/redis.js';

/** A claim whose creator died (or hangs) is free again after this long: longer than any admission takes. */
const CLAIM_MS = 60_000;
/** How often a request waiting for another process's creation looks again. */
const WAIT_STEP_MS = 50;

interface Stored {
  hash: string;
  /** absent while the claimant is creating the job */
  job?: string;
  /** the claimant's token, so only it removes a claim that failed */
  token?: string;
}

/** KEYS[1] the key; ARGV[1] the token. Deletes the claim only while it is still that claimant's. */
const DROP_CLAIM = `
local cur = redis.call('GET', KEYS[1])
if cur and cjson.decode(cur).token == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

export class RedisIdempotency implements IdempotencyKeys {
  /** creations this process is making now: same-process retries await them instead of polling Redis */
  private readonly creating = new Map<string, Promise<string>>();

  constructor(
    private readonly redis: Redis,
    private readonly ttlMs: number,
  ) {}

  async claim(
    key: string,
    hash: string,
    create: () => Promise<string>,
    exists: (jobId: string) => Promise<boolean> = async () => true,
  ): Promise<{ jobId: string; replayed: boolean }> {
    // the client's key may be long and of any bytes: Redis sees its hash
    const k = `${KEY_PREFIX}idempotency:${createHash('sha256').update(key).digest('hex')}`;
    const deadline = Date.now() + CLAIM_MS;
    for (;;) {
      const token = randomUUID();
      const claimed = await this.redis.set(k, JSON.stringify({ hash, token } satisfies Stored), 'PX', CLAIM_MS, 'NX');
      if (claimed === 'OK') return { jobId: await this.createUnder(k, hash, token, create), replayed: false };
      const raw = await this.redis.get(k);
      if (raw === null) continue; // freed between our SET and GET: claim again
      const cur = JSON.parse(raw) as Stored;
      if (cur.hash !== hash) throw mismatch(this.ttlMs);
      if (cur.job !== undefined) {
        if (await exists(cur.job)) return { jobId: cur.job, replayed: true };
        // its job is gone (expired, evicted): the key is free
        await this.redis.eval(DROP_CLAIM, 1, k, cur.token ?? '');
        if (!cur.token) await this.redis.del(k);
        continue;
      }
      const local = this.creating.get(k);
      if (local) {
        const jobId = await local.catch(() => undefined);
        if (jobId !== undefined) return { jobId, replayed: true };
        continue;
      }
      if (Date.now() > deadline) throw new Error('an Idempotency-Key claim did not resolve in time');
      await new Promise((r) => setTimeout(r, WAIT_STEP_MS));
    }
  }

  private async createUnder(k: string, hash: string, token: string, create: () => Promise<string>): Promise<string> {
    const making = create();
    this.creating.set(k, making);
    try {
      const jobId = await making;
      await this.redis.set(k, JSON.stringify({ hash, job: jobId } satisfies Stored), 'PX', this.ttlMs);
      return jobId;
    } catch (err) {
      await this.redis.eval(DROP_CLAIM, 1, k, token).catch(() => {});
      throw err;
    } finally {
      this.creating.delete(k);
    }
  }
}
