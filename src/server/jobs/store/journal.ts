// A durable JobStore: an append-only JSONL journal under DATA_DIR, replayed into the in-memory Map at start.
//
// The Map stays the live index (get/list never touch the disk). Every put/delete is written through to the journal
// before its promise resolves: changes made in the same tick are written as one batch and fsynced once (group
// commit), so a burst of requests costs one fsync, not one each.
//
// Line format (one record change per line, self-checking):
//
//     <crc32 of json, 8 hex>\t<byte length of json, decimal>\t<json>\n
//     json = {"op":"put","rec":{...JobRecord}} | {"op":"del","id":"<job_id>"}
//
// A line whose length or CRC does not match (a torn last write after SIGKILL or power loss) is dropped on replay and
// counted in `stats().dropped`. Compaction rewrites the live records to `<journal>.tmp`, fsyncs it, renames it over
// the journal and fsyncs the directory, so at every instant either the old or the new journal is complete on disk.
// It runs at open and whenever the journal grows past `compactRatio` times the live size (and past `compactMinBytes`).
import { open, rename, mkdir, readFile, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { storedForm, type JobRecord, type JobStore } from './port.js';

/** CRC-32 (IEEE 802.3, the zlib/PNG one) of bytes: node:zlib's. */
export const crc32 = (buf: Uint8Array): number => zlibCrc32(buf);

export type JournalEntry = { op: 'put'; rec: JobRecord } | { op: 'del'; id: string };

/** One journal line (with its trailing newline) for an entry. */
export function encodeLine(entry: JournalEntry): Buffer {
  const json = Buffer.from(JSON.stringify(entry), 'utf8');
  const head = Buffer.from(`${crc32(json).toString(16).padStart(8, '0')}\t${json.length}\t`, 'ascii');
  return Buffer.concat([head, json, Buffer.from('\n')]);
}

/** The entry of one line (without its newline), or null when the line is torn or corrupt. */
export function decodeLine(line: Buffer): JournalEntry | null {
  const t1 = line.indexOf(9);
  if (t1 !== 8) return null;
  const t2 = line.indexOf(9, t1 + 1);
  if (t2 < 0) return null;
  const crcText = line.subarray(0, t1).toString('ascii');
  const lenText = line.subarray(t1 + 1, t2).toString('ascii');
  if (!/^[0-9a-f]{8}$/.test(crcText) || !/^\d{1,10}$/.test(lenText)) return null;
  const json = line.subarray(t2 + 1);
  if (json.length !== Number(lenText)) return null;
  if (crc32(json) !== parseInt(crcText, 16)) return null;
  let e: unknown;
  try {
    e = JSON.parse(json.toString('utf8'));
  } catch {
    return null;
  }
  if (!e || typeof e !== 'object') return null;
  const o = e as Record<string, unknown>;
  if (o.op === 'put' && o.rec && typeof o.rec === 'object' && typeof (o.rec as JobRecord).job_id === 'string')
    return o as JournalEntry;
  if (o.op === 'del' && typeof o.id === 'string') return o as JournalEntry;
  return null;
}

export interface ReplayResult {
  records: Map<string, JobRecord>;
  /** lines applied */
  lines: number;
  /** torn or corrupt lines skipped */
  dropped: number;
}

/** Replays journal bytes into a Map, in order; a corrupt line is skipped (a torn tail is the usual case). */
export function replay(bytes: Buffer): ReplayResult {
  const records = new Map<string, JobRecord>();
  let lines = 0;
  let dropped = 0;
  let start = 0;
  while (start < bytes.length) {
    let end = bytes.indexOf(10, start);
    const torn = end < 0;
    if (torn) end = bytes.length;
    const line = bytes.subarray(start, end);
    start = end + 1;
    if (line.length === 0) continue;
    const e = torn ? null : decodeLine(line);
    if (!e) {
      dropped++;
      continue;
    }
    lines++;
    if (e.op === 'put') records.set(e.rec.job_id, e.rec);
    else records.delete(e.id);
  }
  return { records, lines, dropped };
}

/** A failed journal tries to rewrite itself at most this often. */
const RECOVERY_EVERY_MS = 1000;

export interface JournalStoreOptions {
  /** directory that holds the journal (created if missing), e.g. DATA_DIR */
  dir: string;
  /** file name inside dir (default jobs.journal) */
  file?: string;
  /** compact when the journal is larger than this many times the live records (default 4) */
  compactRatio?: number;
  /** ...and larger than this many bytes (default 1 MiB) */
  compactMinBytes?: number;
  /** fsync each batch (default true; tests of the batching itself may turn it off) */
  fsync?: boolean;
}

export interface JournalStats {
  /** records live in the Map */
  live: number;
  /** bytes of the journal file */
  journalBytes: number;
  /** bytes the live records take as journal lines */
  liveBytes: number;
  /** torn or corrupt lines dropped at open */
  dropped: number;
  /** lines replayed at open */
  replayed: number;
  compactions: number;
  /** write batches (each one write + one fsync) */
  batches: number;
}

interface Pending {
  buf: Buffer;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class JournalJobStore implements JobStore {
  private readonly map: Map<string, JobRecord>;
  /** encoded size of each live record's put line, for the compaction trigger */
  private readonly sizes = new Map<string, number>();
  private liveBytes = 0;
  private journalBytes = 0;
  private fh: FileHandle | null = null;
  private queue: Pending[] = [];
  private writing: Promise<void> | null = null;
  private closed = false;
  private failed: Error | null = null;
  private recovering: Promise<void> | null = null;
  private lastRecovery = 0;
  private readonly st = { dropped: 0, replayed: 0, compactions: 0, batches: 0 };
  readonly path: string;

  private constructor(
    private readonly options: Required<JournalStoreOptions>,
    replayed: ReplayResult,
  ) {
    this.path = join(options.dir, options.file);
    this.map = replayed.records;
    this.st.dropped = replayed.dropped;
    this.st.replayed = replayed.lines;
    for (const [id, rec] of this.map) this.account(id, rec);
  }

  /** Opens (or creates) the journal in dir, replays it into memory and compacts it. */
  static async open(opts: JournalStoreOptions): Promise<JournalJobStore> {
    const o: Required<JournalStoreOptions> = {
      file: 'jobs.journal',
      compactRatio: 4,
      compactMinBytes: 1024 * 1024,
      fsync: true,
      ...opts,
    };
    await mkdir(o.dir, { recursive: true });
    const path = join(o.dir, o.file);
    const bytes = await readFile(path).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return Buffer.alloc(0);
      throw e;
    });
    await rm(`${path}.tmp`, { force: true });
    const store = new JournalJobStore(o, replay(bytes));
    await store.compactNow();
    return store;
  }

  private account(id: string, rec: JobRecord | undefined): void {
    const old = this.sizes.get(id) ?? 0;
    this.liveBytes -= old;
    if (rec) {
      const n = encodeLine({ op: 'put', rec }).length;
      this.sizes.set(id, n);
      this.liveBytes += n;
    } else this.sizes.delete(id);
  }

  async get(id: string): Promise<JobRecord | undefined> {
    const r = this.map.get(id);
    return r ? structuredClone(r) : undefined;
  }

  async list(): Promise<JobRecord[]> {
    return [...this.map.values()].map((r) => structuredClone(r));
  }

  async put(rec: JobRecord): Promise<void> {
    await this.recover();
    this.assertWritable();
    const copy = structuredClone(storedForm(rec));
    const line = encodeLine({ op: 'put', rec: copy });
    const existed = this.map.has(copy.job_id);
    this.map.set(copy.job_id, copy);
    this.liveBytes += line.length - (this.sizes.get(copy.job_id) ?? 0);
    this.sizes.set(copy.job_id, line.length);
    return this.append(line).catch((e) => {
      // a new record that could not be written is forgotten (its creator answers an error, so no job may appear
      // later); a change to a known record stays in memory and reaches the disk with the recovery's compaction
      if (!existed && this.map.get(copy.job_id) === copy) {
        this.map.delete(copy.job_id);
        this.account(copy.job_id, undefined);
      }
      throw e;
    });
  }

  /**
   * After a failed write (a full disk), the journal is rewritten whole from memory (compaction: temporary file,
   * rename), at most once a second; once that succeeds the store takes changes again, without a restart.
   */
  private recover(): Promise<void> {
    if (!this.failed || this.closed) return Promise.resolve();
    if (this.recovering) return this.recovering;
    if (Date.now() - this.lastRecovery < RECOVERY_EVERY_MS) return Promise.resolve();
    this.lastRecovery = Date.now();
    this.recovering = (async () => {
      try {
        await this.compactNow();
        this.failed = null;
      } catch (e) {
        await rm(`${this.path}.tmp`, { force: true }).catch(() => {});
        this.failed = e instanceof Error ? e : new Error(String(e));
      } finally {
        this.recovering = null;
      }
    })();
    return this.recovering;
  }

  /** Whether a change can be written now; a failed journal tries to recover first. */
  async writable(): Promise<boolean> {
    await this.recover();
    return !this.failed && !this.closed;
  }

  async delete(id: string): Promise<void> {
    await this.recover();
    this.assertWritable();
    if (!this.map.has(id)) return;
    this.map.delete(id);
    this.account(id, undefined);
    return this.append(encodeLine({ op: 'del', id }));
  }

  /** A change is refused before it touches the Map when the journal cannot take it (closed, or a write failed). */
  private assertWritable(): void {
    if (this.closed) throw new Error('job journal is closed');
    if (this.failed) throw this.failed;
  }

  /** Queues a line; resolves once it is on disk (written and fsynced with its batch). */
  private append(buf: Buffer): Promise<void> {
    if (this.closed) return Promise.reject(new Error('job journal is closed'));
    if (this.failed) return Promise.reject(this.failed);
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ buf, resolve, reject });
      this.writing ??= this.drain();
    });
  }

  /** Writes queued lines in batches until the queue is empty; compacts between batches when due. */
  private async drain(): Promise<void> {
    // let every put of the current tick join the first batch
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.queue.length) {
        const batch = this.queue;
        this.queue = [];
        try {
          const buf = Buffer.concat(batch.map((p) => p.buf));
          await this.writeAll(buf);
          if (this.options.fsync) await this.fh!.datasync();
          this.journalBytes += buf.length;
          this.st.batches++;
          for (const p of batch) p.resolve();
        } catch (e) {
          this.failed = e instanceof Error ? e : new Error(String(e));
          for (const p of [...batch, ...this.queue]) p.reject(this.failed);
          this.queue = [];
          return;
        }
        if (
          this.journalBytes > this.options.compactMinBytes &&
          this.journalBytes > this.options.compactRatio * this.liveBytes
        ) {
          await this.compactNow().catch((e) => {
            this.failed = e instanceof Error ? e : new Error(String(e));
          });
        }
      }
    } finally {
      this.writing = null;
    }
  }

  private async writeAll(buf: Buffer): Promise<void> {
    let off = 0;
    while (off < buf.length) {
      const { bytesWritten } = await this.fh!.write(buf, off, buf.length - off);
      off += bytesWritten;
    }
  }

  /**
   * Rewrites the journal as one put line per live record: temporary file, fsync, rename, fsync of the directory.
   * Called with no batch in flight (at open, or from the writer between batches).
   */
  private async compactNow(): Promise<void> {
    const tmp = `${this.path}.tmp`;
    const lines: Buffer[] = [];
    for (const rec of this.map.values()) lines.push(encodeLine({ op: 'put', rec }));
    const buf = Buffer.concat(lines);
    const t = await open(tmp, 'w', 0o600);
    try {
      let off = 0;
      while (off < buf.length) off += (await t.write(buf, off, buf.length - off)).bytesWritten;
      await t.sync();
    } finally {
      await t.close();
    }
    await this.fh?.close();
    this.fh = null;
    await rename(tmp, this.path);
    await syncDir(this.options.dir);
    this.fh = await open(this.path, 'a', 0o600);
    this.journalBytes = buf.length;
    this.liveBytes = buf.length;
    this.st.compactions++;
  }

  /** Waits for every queued write to be on disk. */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
    if (this.failed) throw this.failed;
  }

  /** Flushes and closes the file; later writes reject. */
  async close(): Promise<void> {
    await this.flush().catch(() => {});
    this.closed = true;
    await this.fh?.close().catch(() => {});
    this.fh = null;
  }

  stats(): JournalStats {
    return { live: this.map.size, journalBytes: this.journalBytes, liveBytes: this.liveBytes, ...this.st };
  }
}

async function syncDir(dir: string): Promise<void> {
  let d: FileHandle | undefined;
  try {
    d = await open(dir, 'r');
    await d.sync();
  } catch {
    // some filesystems refuse fsync on a directory; the rename is still atomic
  } finally {
    await d?.close().catch(() => {});
  }
}
