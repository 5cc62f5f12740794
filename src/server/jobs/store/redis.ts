// Job records in Redis (with REDIS_URL): the same JobStore the routes use with the journal, so any API process
// answers for any job. One JSON string per job that expires on its own: an ended one RETENTION_MS after it ended, a
// pending one only when nobody keeps it (keepPending(), from every API process, while it waits or renders), so the
// record of work Redis lost does not stay for ever. The progress of a rendering job is a hash beside it (chunk index
// -> frames done), written by the workers.
import type { Redis } from 'ioredis';
import { storedForm, type JobRecord, type LifecycleStore } from './port.js';
import type { SharedByteCount } from '../../storage/output-store.js';

export const KEY_PREFIX = 'cmrender:';
const jobKey = (id: string) => `${KEY_PREFIX}job:${id}`;
const progressKey = (id: string) => `${KEY_PREFIX}progress:${id}`;

/** The pending jobs of every API process (a sorted set: job id -> created_at), for MAX_QUEUED_JOBS across them. */
const ADMITTED_KEY = `${KEY_PREFIX}admitted`;

/**
 * The jobs waiting for their first worker, in the order the workers will take them (a sorted set: job id -> its
 * place, created_at plus its estimate in ms, the embedded queue's order: jobs/queue/fair-order.ts). A job's queue_position is its
 * rank here: one ZRANK, however long the line (reading BullMQ's whole waiting list took a second at 2,000 jobs).
 */
const LINE_KEY = `${KEY_PREFIX}line`;

/**
 * KEYS[1] the record, KEYS[2] the admitted set, KEYS[3] the line; ARGV[1] the ended record's JSON, ARGV[2] when it
 * expires (Unix ms), ARGV[3] the job id. 1 when written (and the job leaves the admitted set and the line), 0 when the record is
 * gone or not pending.
 */
const END_IF_PENDING = `
local cur = redis.call('GET', KEYS[1])
redis.call('ZREM', KEYS[3], ARGV[3])
if not cur then
  redis.call('ZREM', KEYS[2], ARGV[3])
  return 0
end
if cjson.decode(cur).status ~= 'pending' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[3])
return 1
`;

const LINE_SEQ_KEY = `${KEY_PREFIX}line-seq`;

/**
 * KEYS[1] the line, KEYS[2] its arrival counter; ARGV[1] the place (ms), ARGV[2] the job id. Jobs at the same
 * millisecond would be ranked by their ids; a fraction of the place from the counter (1/4096 ms, within a double's
 * precision at today's epoch) keeps them in arrival order, as BullMQ keeps equal priorities.
 */
const JOIN_LINE = `
local seq = redis.call('INCR', KEYS[2]) % 4096
redis.call('ZADD', KEYS[1], tonumber(ARGV[1]) + seq / 4096, ARGV[2])
return 1
`;

/**
 * KEYS[1] the record, KEYS[2] the line; ARGV[1] the started record's JSON, ARGV[2] its TTL in ms, ARGV[3] the job id.
 * 1 when written, 0 when not pending.
 */
const START_IF_PENDING = `
redis.call('ZREM', KEYS[2], ARGV[3])
local cur = redis.call('GET', KEYS[1])
if not cur or cjson.decode(cur).status ~= 'pending' then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

/**
 * KEYS[1] the admitted set; ARGV[1] the job id, ARGV[2] now, ARGV[3] the cap, ARGV[4] the oldest score still counted.
 * Entries older than a record lives (a process that died between admitting and writing) are dropped first. 1 when
 * admitted, 0 when the cap is reached.
 */
const ADMIT = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[4])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
`;

/** The ended jobs whose records are kept (a sorted set: job id -> when it ended), for MAX_ENDED_JOBS across processes. */
const ENDED_KEY = `${KEY_PREFIX}ended`;
/**
 * KEYS[1] the ended set; ARGV[1] the job id, ARGV[2] when it ended, ARGV[3] the cap. Adds the job and pops those past
 * the cap, oldest-ended first, in one step (two processes ending jobs at once evict each job once); returns their ids.
 */
const KEEP_ENDED = `
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
local over = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if over <= 0 then return {} end
local gone = {}
local popped = redis.call('ZPOPMIN', KEYS[1], over)
for i = 1, #popped, 2 do gone[#gone + 1] = popped[i] end
return gone
`;
/**
 * KEYS[1] the line, KEYS[2] the admitted set; ARGV[1] the key prefix of records, ARGV[2] their TTL in ms. Every job in
 * either set is pending (END_IF_PENDING takes it out of both as it ends): its record lives ARGV[2] more.
 */
const KEEP_PENDING = `
for _, set in ipairs(KEYS) do
  for _, id in ipairs(redis.call('ZRANGE', set, 0, -1)) do redis.call('PEXPIRE', ARGV[1] .. id, ARGV[2]) end
end
return 1
`;

/** KEYS[1] the progress hash, KEYS[2] the record; ARGV[1] the part, ARGV[2] its done, ARGV[3] the pending TTL. */
const SET_PROGRESS = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local cur = redis.call('GET', KEYS[2])
if cur and string.find(cur, '"status":"pending"', 1, true) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1
`;

/** The output bytes in the shared storage, counted once for every process (OUTPUT_MAX_BYTES). */
const OUTPUT_BYTES_KEY = `${KEY_PREFIX}output-bytes`;

export class RedisJobStore implements LifecycleStore, SharedByteCount {
  constructor(
    private readonly redis: Redis,
    private readonly retentionMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * How often keepPending() must run, and how long a pending record lives after it: four rounds, so a loaded process
   * that misses one or two loses nothing (at least twice RETENTION_MS, as before).
   */
  get keepPendingEveryMs(): number {
    return Math.min(60_000, Math.max(1_000, this.retentionMs / 4));
  }

  private get pendingTtlMs(): number {
    return Math.max(2 * this.retentionMs, 4 * this.keepPendingEveryMs);
  }

  /**
   * Keeps alive the records of the jobs that wait in the line or are admitted and not ended. A job waiting behind a
   * long queue writes nothing: its record, expiring 2 x RETENTION_MS after its creation, went while it still waited
   * (its end then found no record, and the client a 404 for a job that was about to render).
   */
  async keepPending(): Promise<void> {
    await this.redis.eval(KEEP_PENDING, 2, LINE_KEY, ADMITTED_KEY, `${KEY_PREFIX}job:`, String(this.pendingTtlMs));
  }

  /** Whether the connection to Redis is up now (a command sent now would not fail at once). */
  get reachable(): boolean {
    return this.redis.status === 'ready';
  }

  /**
   * When an ended record goes: RETENTION_MS after it ended (its output was written), as the journal's retention
   * counts, on the clock completed_at was read from. An absolute time (PXAT), not a TTL counted from when Redis gets
   * the command: a TTL of "RETENTION_MS less the time since the end" kept a record past its time by the command's way
   * to Redis (milliseconds on a loaded machine), again at every later write (a webhook's attempt). One clock for every process and Redis, as BullMQ's delayed jobs and the journal's retention already take.
   */
  private endedExpiry(rec: JobRecord): number {
    return (rec.completed_at ?? rec.created_at) + this.retentionMs;
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const raw = await this.redis.get(jobKey(id));
    return raw ? (JSON.parse(raw) as JobRecord) : undefined;
  }

  async put(rec: JobRecord): Promise<void> {
    // a pending record lives pendingTtlMs from its last write or keepPending(), so one whose work was lost goes
    const value = JSON.stringify(storedForm(rec));
    if (rec.status === 'pending') await this.redis.set(jobKey(rec.job_id), value, 'PX', this.pendingTtlMs);
    else await this.redis.set(jobKey(rec.job_id), value, 'PXAT', this.endedExpiry(rec));
  }

  /**
   * Writes an ended record only if the stored one is still pending, in one step on the server (a Lua script): of a
   * cancel and a worker's finish racing for the same job, exactly one wins and the other learns it lost (false).
   * A read, a check and a write from two processes let both win: DELETE answered "cancelled" and the job then
   * ended ready (2 of 40 cancels sent near the finish).
   */
  async endIfPending(rec: JobRecord): Promise<boolean> {
    const won = await this.redis.eval(
      END_IF_PENDING,
      3,
      jobKey(rec.job_id),
      ADMITTED_KEY,
      LINE_KEY,
      JSON.stringify(storedForm(rec)),
      String(this.endedExpiry(rec)),
      rec.job_id,
    );
    return won === 1;
  }

  /**
   * Counts a new job against MAX_QUEUED_JOBS for every API process at once (one script on the server: check and
   * add in one step); false when `cap` jobs are pending already. A job leaves the count when it ends (endIfPending).
   */
  async admit(id: string, cap: number): Promise<boolean> {
    const now = this.now();
    return (
      (await this.redis.eval(ADMIT, 1, ADMITTED_KEY, id, String(now), String(cap), String(now - this.retentionMs))) ===
      1
    );
  }

  /** A new job joins the line at its place (created_at + estimate, in ms); jobs at the same place in arrival order. */
  async joinLine(id: string, place: number): Promise<void> {
    await this.redis.eval(JOIN_LINE, 2, LINE_KEY, LINE_SEQ_KEY, String(place), id);
  }

  /** 1 = next to start, ...; undefined when the job is not waiting for its first worker (started, ended, lost). */
  async placeInLine(id: string): Promise<number | undefined> {
    const rank = await this.redis.zrank(LINE_KEY, id);
    return rank === null ? undefined : rank + 1;
  }

  /**
   * A worker took the job's first item: the record says when, and the job leaves the line (the jobs behind move up).
   * Written only while the record is pending (one script, like endIfPending), so a cancel that won meanwhile is not
   * undone; false then.
   */
  async markStarted(rec: JobRecord, at: number): Promise<boolean> {
    const started = { ...rec, started_at: at };
    const won =
      (await this.redis.eval(
        START_IF_PENDING,
        2,
        jobKey(rec.job_id),
        LINE_KEY,
        JSON.stringify(storedForm(started)),
        String(this.pendingTtlMs),
        rec.job_id,
      )) === 1;
    // rec says started only when the store does: a cancel that won leaves it unstarted, so nobody renders it
    if (won) rec.started_at = at;
    return won;
  }

  /**
   * Claims attempt `n` of a job's webhook delivery for this process; false when another process has it. The claim
   * outlives one attempt (its time limit and the record write after it) and then frees, so a process that died
   * mid-attempt leaves it to a later resume.
   */
  async claimWebhookAttempt(id: string, n: number, holdMs: number): Promise<boolean> {
    return (await this.redis.set(`${KEY_PREFIX}webhook:${id}:${n}`, '1', 'PX', holdMs, 'NX')) === 'OK';
  }

  async addOutputBytes(delta: number): Promise<number> {
    return this.redis.incrby(OUTPUT_BYTES_KEY, Math.round(delta));
  }

  async setOutputBytes(total: number): Promise<void> {
    await this.redis.set(OUTPUT_BYTES_KEY, String(Math.round(total)));
  }

  async outputBytes(): Promise<number> {
    return Number((await this.redis.get(OUTPUT_BYTES_KEY)) ?? 0);
  }

  /** Jobs admitted and not ended, across every process. */
  async admitted(): Promise<number> {
    return this.redis.zcard(ADMITTED_KEY);
  }

  /** A job that was admitted but will not be queued after all (its record could not be written). */
  async unadmit(id: string): Promise<void> {
    await this.redis.zrem(ADMITTED_KEY, id);
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(jobKey(id), progressKey(id));
  }

  async list(): Promise<JobRecord[]> {
    const out: JobRecord[] = [];
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${KEY_PREFIX}job:*`, 'COUNT', 500);
      cursor = next;
      if (!keys.length) continue;
      for (const raw of await this.redis.mget(...keys)) if (raw) out.push(JSON.parse(raw) as JobRecord);
    } while (cursor !== '0');
    return out;
  }

  /** A worker's progress on one part of a job: `part` is a chunk index, or "whole" (then `done` is 0..1). */
  async setProgress(id: string, part: string, done: number): Promise<void> {
    // a rendering job has left the line: its progress keeps its record alive
    await this.redis.eval(SET_PROGRESS, 2, progressKey(id), jobKey(id), part, String(done), String(this.pendingTtlMs));
  }

  async keepEnded(id: string, endedAt: number, cap: number): Promise<string[]> {
    if (!Number.isFinite(cap)) return [];
    return (await this.redis.eval(KEEP_ENDED, 1, ENDED_KEY, id, String(endedAt), String(cap))) as string[];
  }

  async progressOf(id: string): Promise<Record<string, number>> {
    const h = await this.redis.hgetall(progressKey(id));
    return Object.fromEntries(Object.entries(h).map(([k, v]) => [k, Number(v)]));
  }

  async clearProgress(id: string): Promise<void> {
    await this.redis.del(progressKey(id));
  }
}
