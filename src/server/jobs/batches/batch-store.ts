// A batch's record (POST /v1/batches) and where it is kept. The record holds what never changes once the batch is
// admitted: its rows (each a job of its own, by id, with the name its file has in the archive and the args it was
// made with), its owner, its Idempotency-Key and its webhook's delivery. What each row has become is its job's record,
// read at every view, so a batch needs no write when a row ends. Embedded, a batch is a JSON file beside the journal
// (DATA_DIR/batches/<id>.json, written whole by tmp + rename), so it survives a restart as the jobs do; with
// REDIS_URL it is a Redis key (redis.ts's RedisBatchStore), so every API process sees it. A record lives as long as
// job records do (RETENTION_MS).
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobKind } from '../../../contract/job-kind.js';
import type { WebhookState } from '../store/port.js';

export interface BatchRow {
  job_id: string;
  /** the row's file name in the archive, without its extension */
  name: string;
  args?: Record<string, unknown>;
}

export interface BatchRecord {
  batch_id: string;
  kind: Extract<JobKind, 'frame' | 'video' | 'gif'>;
  created_at: number;
  rows: BatchRow[];
  /** the id of the API key that made the batch (http/tenancy.ts) */
  owner?: string;
  idempotency?: { key: string; hash: string };
  /** called once when every row has ended; its delivery's progress (webhooks/dispatcher.ts's fields) */
  webhook?: WebhookState;
  /** when the batch was seen ended (its webhook's moment) */
  ended_at?: number;
}

export interface BatchStore {
  get(id: string): Promise<BatchRecord | undefined>;
  put(rec: BatchRecord): Promise<void>;
  delete(id: string): Promise<void>;
  list(): Promise<BatchRecord[]>;
}

/** A batch id: a UUID, the file name it is kept under (never a path a request could steer). */
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Embedded mode: one JSON file per batch under DATA_DIR/batches. */
export class FileBatchStore implements BatchStore {
  private readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, 'batches');
  }

  private path(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  async get(id: string): Promise<BatchRecord | undefined> {
    if (!ID.test(id)) return undefined;
    try {
      return JSON.parse(await readFile(this.path(id), 'utf8')) as BatchRecord;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async put(rec: BatchRecord): Promise<void> {
    await mkdir(this.dir, { recursive: true });
    const tmp = `${this.path(rec.batch_id)}.tmp`;
    await writeFile(tmp, JSON.stringify(rec));
    await rename(tmp, this.path(rec.batch_id));
  }

  async delete(id: string): Promise<void> {
    if (ID.test(id)) await rm(this.path(id), { force: true });
  }

  async list(): Promise<BatchRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch {
      return [];
    }
    const out: BatchRecord[] = [];
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      const rec = await this.get(n.slice(0, -5)).catch(() => undefined);
      if (rec) out.push(rec);
    }
    return out;
  }
}

/** A store this process alone holds (tests, and a service given a memory job store). */
export class MemoryBatchStore implements BatchStore {
  private readonly recs = new Map<string, string>();
  async get(id: string): Promise<BatchRecord | undefined> {
    const s = this.recs.get(id);
    return s === undefined ? undefined : (JSON.parse(s) as BatchRecord);
  }
  async put(rec: BatchRecord): Promise<void> {
    this.recs.set(rec.batch_id, JSON.stringify(rec));
  }
  async delete(id: string): Promise<void> {
    this.recs.delete(id);
  }
  async list(): Promise<BatchRecord[]> {
    return [...this.recs.values()].map((s) => JSON.parse(s) as BatchRecord);
  }
}

/** The part of an ioredis connection a RedisBatchStore uses. */
export interface BatchRedis {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ms: number): Promise<unknown>;
  del(key: string): Promise<number>;
}

/**
 * With REDIS_URL: one JSON string per batch (`cmrender:batch:<id>`), living twice RETENTION_MS (its rows' records
 * live RETENTION_MS from their end), so any API process answers for any batch. list() is empty: a batch's end and
 * idempotency key are Redis's (the rows' records, the shared key index), never seeded at a process's start.
 */
export class RedisBatchStore implements BatchStore {
  constructor(
    private readonly redis: BatchRedis,
    private readonly retentionMs: number,
  ) {}

  private key(id: string): string {
    return `cmrender:batch:${id}`;
  }

  async get(id: string): Promise<BatchRecord | undefined> {
    if (!ID.test(id)) return undefined;
    const raw = await this.redis.get(this.key(id));
    return raw ? (JSON.parse(raw) as BatchRecord) : undefined;
  }

  async put(rec: BatchRecord): Promise<void> {
    await this.redis.set(this.key(rec.batch_id), JSON.stringify(rec), 'PX', Math.max(1, 2 * this.retentionMs));
  }

  async delete(id: string): Promise<void> {
    await this.redis.del(this.key(id));
  }

  async list(): Promise<BatchRecord[]> {
    return [];
  }
}
