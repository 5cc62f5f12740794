// The render cache: our determinism promise says the same job gives the same bytes, so a job whose key matches an
// output still kept is ready at once with a copy of that output's bytes under its own name (outputs.addCopy), in
// embedded and Redis mode alike. Entries live in the storage's `cache` area (cache/<key>, a small JSON), so every
// API process and worker that shares the storage shares the cache; none is kept in memory.
//
// What the key covers (everything that changes the bytes of an output):
// - CACHE_FORMAT: bumped by hand if a change of ours ever changes bytes without changing anything below;
// - the job kind (frame, video, gif, mesh, vectorize);
// - the source text, which holds its runner pin; and the newest runner this service knows, which is the runner of a
//   source without a pin;
// - the params as stored (the request's, without `cache`), keys sorted, so {"width":160,"fps":10} and
//   {"fps":10,"width":160} are one key but an omitted default and the same value spelt out are two (a harmless miss);
// - the scene's args, as canonical JSON (keys sorted at every level), when the request gave any;
// - the assets by content: the URL path the page loads (contract/asset-path.ts) -> SHA-256 of the bytes (two uploads
//   of one image are the same input, and so are "/img/a.png" and "/img/./a.png");
// - with API_KEYS, the owner (the id of the key that made the job): keys are tenants (http/tenancy.ts), so one key's
//   job never comes back `cached: true` from another's, which would tell it what another tenant rendered;
// and, checked beside the key rather than in it, the renderer's setup that drew the output (GL backend, H.264
// encoder: Renderer.setup), which an API that renders nothing itself does not know: it trusts its workers' entry
// (a fleet whose workers would pick different GL backends under RENDER_GL=auto should name one).
// Not in the key: the job id, times, webhooks, the Idempotency-Key: none of them reaches the bytes.
//
// An entry is served only while the output it names is still held by its ready job and younger than the retention
// (a cached output never outlives its own 24 hours); the copy then lives 24 hours from its own job's end.
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { newestRunner } from '../../lang/runners.js';
import { normalizeAssetPath } from '../../contract/asset-path.js';
import { canonicalJson } from '../../contract/canonical-json.js';
import type { Renderer } from '../../render/renderer-port.js';
import type { AssetStore } from '../storage/asset-store.js';
import type { OutputStore } from '../storage/output-store.js';
import type { Storage } from '../storage/storage.js';
import type { JobKind } from '../../contract/job-kind.js';
import type { JobOutput, JobParams, JobRecord, JobStore } from './store/port.js';

const CACHE_FORMAT = 1;

/** An identical job's output that may serve a new job (its copy is made under the new job's name). */
export interface CacheHit {
  output: JobOutput;
  runner?: string;
}

/** A new job's record fields once its output is the copy of a cached one (ready at once, cached: true). */
export function cachedFields(rec: JobRecord, output: JobOutput, runner?: string): Partial<JobRecord> {
  const done = output.written_at;
  return {
    status: 'ready',
    completed_at: done,
    progress: 1,
    output,
    cached: true,
    timings: { queue_wait_ms: 0, total_ms: done - rec.created_at },
    ...(runner ? { runner } : {}),
  };
}

interface CacheEntry {
  job_id: string;
  output: JobOutput;
  runner?: string;
  /** the renderer's setup that drew it (Renderer.setup) */
  setup: string | null;
}

export interface RenderCacheOptions {
  /** the storage's cache area */
  files: Storage;
  store: JobStore;
  assets: AssetStore;
  outputs: OutputStore;
  renderer: Renderer;
  retentionMs: number;
  log: Logger;
  now: () => number;
  /** RENDER_CACHE: false renders every job (default true) */
  enabled?: boolean;
}

export class RenderCache {
  constructor(private readonly o: RenderCacheOptions) {}

  /** The key of a job (see the top of this file); undefined when an asset is gone (the job will fail anyway). */
  async keyOf(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    args?: Record<string, unknown>,
    owner?: string,
  ): Promise<string | undefined> {
    const byContent: [string, string][] = [];
    // many paths may name one key: each distinct key's hash is looked up once
    const hashes = new Map<string, string | undefined>();
    for (const [path, key] of Object.entries(assets)) {
      if (!hashes.has(key)) hashes.set(key, await this.o.assets.sha256(key));
      const sha = hashes.get(key);
      if (!sha) return undefined;
      // the path the page loads: "/img/./a.png" and "/img/a.png" are one input (a map naming both is refused)
      byContent.push([normalizeAssetPath(path), sha]);
    }
    const canonical = JSON.stringify([
      CACHE_FORMAT,
      kind,
      source,
      newestRunner(),
      Object.entries(params ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)),
      byContent.sort(([a], [b]) => (a < b ? -1 : 1)),
      // a job without args keeps the key it had before args existed
      ...(args && Object.keys(args).length > 0 ? [canonicalJson(args)] : []),
      // a job made without a key keeps the key it always had
      ...(owner === undefined ? [] : [{ owner }]),
    ]);
    return createHash('sha256').update(canonical).digest('hex');
  }

  /**
   * At a job's creation: its cache key is set on the record (the renderer records the entry once ready), and when
   * `read`, the output an identical job left, if it may serve this one (the entry's output still held by its ready
   * job, younger than the retention, drawn by this renderer's setup); undefined when the job must render. A job that
   * may not read the cache (Cache-Control: no-cache, params.cache false) still fills it: its fresh output serves the
   * identical jobs after it. The job service makes the copy (outputs.addCopy) once the new record holds its name.
   */
  async hit(rec: JobRecord, read = true): Promise<CacheHit | undefined> {
    if (this.o.enabled === false) return undefined;
    // a renderer that does not say what draws (a test's fake) promises nothing: its jobs are never cached
    if (this.o.renderer.setup?.(rec.kind) === undefined) return undefined;
    rec.cache_key = await this.keyOf(rec.kind, rec.source, rec.params, rec.assets, rec.args, rec.owner);
    if (!rec.cache_key || !read) return undefined;
    return this.servable(rec.cache_key, rec.kind).catch((err) => {
      this.o.log.warn({ err, job_id: rec.job_id }, 'render cache not read: the job renders');
      return undefined;
    });
  }

  private async servable(key: string, kind: JobKind): Promise<CacheHit | undefined> {
    const entry = await this.entry(key);
    if (!entry) return undefined;
    if (entry.output.written_at + this.o.retentionMs <= this.o.now()) return undefined;
    // null: this process draws nothing itself (an API beside render workers) and trusts the workers' entry
    const mine = this.o.renderer.setup?.(kind);
    if (mine === undefined || (mine !== null && entry.setup !== mine)) return undefined;
    const holder = await this.o.store.get(entry.job_id);
    if (holder?.status !== 'ready' || holder.output?.filename !== entry.output.filename) return undefined;
    return { output: entry.output, ...(entry.runner ? { runner: entry.runner } : {}) };
  }

  /** Records a ready job's output under its key (a failure to record is logged: the next job renders again). */
  async remember(rec: JobRecord): Promise<void> {
    const setup = this.o.renderer.setup?.(rec.kind);
    if (!rec.cache_key || !rec.output || setup === undefined) return;
    const entry: CacheEntry = { job_id: rec.job_id, output: rec.output, runner: rec.runner, setup };
    await this.o.files
      .put(rec.cache_key, Buffer.from(JSON.stringify(entry)))
      .catch((err) => this.o.log.warn({ err, job_id: rec.job_id }, 'render cache entry not written'));
  }

  /** Deletes entries whose output is past retention (the retention sweep calls it). */
  async sweep(): Promise<void> {
    const now = this.o.now();
    for (const key of await this.o.files.list()) {
      const e = await this.entry(key);
      if (!e || e.output.written_at + this.o.retentionMs <= now) await this.o.files.remove(key);
    }
  }

  private async entry(key: string): Promise<CacheEntry | undefined> {
    if (!(await this.o.files.stat(key))) return undefined;
    const chunks: Buffer[] = [];
    for await (const c of await this.o.files.get(key)) chunks.push(c as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8')) as CacheEntry;
    } catch {
      return undefined;
    }
  }
}
