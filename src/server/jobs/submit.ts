// The admission sequence of a new job (JobService.submit): from a request that passed its schema to a queued job's
// id, or the answer that says why not. The order is the contract's: what the client got wrong (400: an unknown asset,
// a webhook it may not call) before what the service cannot do now (503: storage, a full queue), the costly estimate
// only for a request that may be taken, and the queue cap checked again with no await before the job is created, so
// it is exact under concurrent requests. Nothing is queued unless every step passed; a place taken is given back.
// It knows nothing of HTTP: the route hands it the body and what it knows of the sender, and answers what it throws
// (a ServiceError: 400, 422, 429; a Refused: 503).
import { CODE } from '../../contract/error-codes.js';
import { sameUrlPaths } from '../../contract/asset-path.js';
import { isNoSpace } from '../../contract/no-space.js';
import { journalUnwritable, Refused, storageUnavailable, type Refusal } from '../../contract/refusals.js';
import { badRequest, serviceError } from '../../contract/service-error.js';
import { checkedSceneArgs } from './scene-args.js';
import type { IdempotencyKeys } from './idempotency.js';
import type { JobKind } from '../../contract/job-kind.js';
import { storeInline, vectorizeInput, type JobInput } from './vectorize-input.js';
import type { AssetStore } from '../storage/asset-store.js';
import { StorageUnavailable } from '../storage/storage.js';
import { WebhookRefused, type WebhookPolicy } from '../webhooks/address-policy.js';
import type { JobExtras } from './new-record.js';
import type { JobParams, JobRecord, WebhookState } from './store/port.js';
import type { WorkAdmission } from './work-admission.js';

/** Cache-Control directives that ask for a fresh render (RFC 9111: no-cache; no-store is taken the same way). */
export const NO_CACHE = /(^|[\s,])no-(cache|store)\b/i;

/** An enqueueing request's body once its schema passed (each kind's body is a subset of this). */
export interface EnqueueBody {
  source?: string;
  image?: string;
  params?: Record<string, number | boolean>;
  /** the rendered scene's arguments (frame, video, gif) */
  args?: Record<string, unknown>;
  assets?: Record<string, string>;
  webhook?: { url: string; secret?: string };
}

/** A request to queue a job, as the route read it: the validated body and what HTTP knows of its sender. */
export interface Submission {
  kind: JobKind;
  body: EnqueueBody;
  /** the asset map as the client sent it: validation re-shapes records and would drop an in-source path "__proto__" */
  sentAssets?: Record<string, string>;
  /** the request's Cache-Control header ('' when none) */
  cacheControl: string;
  /** the id of the API key the request presented (http/tenancy.ts) */
  owner?: string;
  /** whom MAX_QUEUED_JOBS_PER_CLIENT counts: `key:<id>` or `ip:<address>` */
  client: string;
  /** the Idempotency-Key, scoped to its caller, and the request's hash (idempotency.ts) */
  idempotency?: { key: string; hash: string };
}

/** The per-client cap as admission uses it (client-quota.ts's ClientQuota). */
export interface ClientPlaces {
  readonly max: number;
  take(client: string): boolean;
  bind(client: string, jobId: string): void;
  release(jobId: string): void;
  giveBack(client: string): void;
}

/** What the door brings besides the job service: the asset store, the webhook policy, idempotency, the client cap. */
export interface SubmitDoor {
  assets: AssetStore;
  webhookPolicy: WebhookPolicy;
  idempotency: IdempotencyKeys;
  /** MAX_QUEUED_JOBS_PER_CLIENT (embedded mode), else null */
  quota: ClientPlaces | null;
}

/** What the sequence asks of the job service (JobService: named here so this module does not import it). */
export interface Admitting {
  storageRefusal(): Promise<Refusal | null>;
  admission(): Refusal | null;
  estimate(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    args?: Record<string, unknown>,
  ): Promise<WorkAdmission>;
  create(
    kind: JobKind,
    source: string,
    params: JobParams,
    assets: Record<string, string>,
    extras: JobExtras,
    work: WorkAdmission,
  ): Promise<JobRecord>;
  get(id: string): Promise<JobRecord | undefined>;
}

/**
 * The id of the job the submission made, or of the one an earlier request with the same Idempotency-Key and body
 * made. Throws a ServiceError (400, 422 idempotency_mismatch, 429 client_queue_full) or a Refused (503).
 */
export async function submit(jobs: Admitting, door: SubmitDoor, s: Submission): Promise<string> {
  try {
    if (!s.idempotency) return await create(jobs, door, s);
    const { key, hash } = s.idempotency;
    const exists = async (id: string) => (await jobs.get(id)) !== undefined;
    return (await door.idempotency.claim(key, hash, () => create(jobs, door, s), exists)).jobId;
  } catch (err) {
    // the assets could not be checked or stored (STORAGE_URL's bucket is down): nothing was queued
    if (err instanceof StorageUnavailable) throw new Refused(storageUnavailable());
    throw err;
  }
}

/** Retry-After of 429 client_queue_full (seconds): when one of the client's jobs ends is not known at the door. */
export const CLIENT_QUEUE_RETRY_S = 5;

async function create(jobs: Admitting, door: SubmitDoor, s: Submission): Promise<string> {
  const { kind, body: b } = s;
  // the args are checked against the scene they render before anything else is looked up or queued
  const scene = sceneArgs(kind, b);
  const assetMap = await knownAssets(door.assets, s.sentAssets ?? b.assets, s.owner);
  const webhook = await checkedWebhook(door.webhookPolicy, b.webhook);
  const storage = await jobs.storageRefusal();
  if (storage) throw new Refused(storage);
  const early = jobs.admission();
  if (early) throw new Refused(early);
  // vectorize: the image is checked by its bytes; an inline one is stored as an asset (the journal keeps keys), and
  // counts against ASSETS_MAX_BYTES from here, though it lands only once the job is admitted
  const input: JobInput =
    kind === 'vectorize' ? await vectorizeInput(door.assets, b, assetMap) : { source: b.source!, assets: assetMap };
  const reserved = input.inline?.length ?? 0;
  if (input.inline) {
    const full = door.assets.reserve(reserved);
    if (full) throw new Refused(full);
  }
  try {
    return await admit(jobs, door, s, input, webhook, scene);
  } finally {
    door.assets.release(reserved);
  }
}

/** The rest of the sequence, once the input is known: the estimate, the caps, then the job's creation. */
async function admit(
  jobs: Admitting,
  door: SubmitDoor,
  s: Submission,
  input: JobInput,
  webhook: WebhookState | undefined,
  scene: { args: Record<string, unknown>; scene: string } | undefined,
): Promise<string> {
  const { kind, body: b } = s;
  // params.cache says how to answer, not what to draw: the record keeps the params without it
  const { cache, ...params } = (b.params ?? {}) as JobParams & { cache?: boolean };
  const useCache = cache !== false && !NO_CACHE.test(s.cacheControl);
  const work = await jobs.estimate(kind, input.source, params, input.assets, scene?.args);
  if (work.tooLarge) throw badRequest(CODE.output_too_large, work.tooLarge);
  if (work.full) throw new Refused(work.full);
  if (work.refusal) throw badRequest(CODE.too_much_work, work.refusal);
  // no await between this check and create: the queue cap is exact under concurrent requests
  const refusal = jobs.admission();
  if (refusal) throw new Refused(refusal);
  const quota = door.quota;
  if (quota && !quota.take(s.client))
    // when one of the client's jobs ends is not known here: a poll's pace
    throw serviceError(
      CODE.client_queue_full,
      `this client has ${quota.max} jobs waiting or rendering (MAX_QUEUED_JOBS_PER_CLIENT); retry when one has ended`,
      CLIENT_QUEUE_RETRY_S,
    );
  // the place is bound to the job before it is stored: a job that ends at once (a cache hit ends inside create)
  // gives it back like any other
  let bound: string | undefined;
  let assets: Record<string, string> | undefined;
  try {
    // admitted: an inline image is stored now (the render cache keys it by its stored hash), and the queue cap is
    // asked again after that await, so it stays exact
    if (input.inline) {
      assets = await storeInline(door.assets, input, s.owner);
      const late = jobs.admission();
      if (late) throw new Refused(late);
    } else assets = input.assets;
    const rec = await jobs.create(
      kind,
      input.source,
      params,
      assets,
      {
        webhook,
        idempotency: s.idempotency,
        cache: useCache,
        ...(scene ?? {}),
        ...(s.owner ? { owner: s.owner } : {}),
        onId: (id) => {
          bound = id;
          quota?.bind(s.client, id);
        },
      },
      work,
    );
    return rec.job_id;
  } catch (err) {
    if (quota) {
      if (bound === undefined) quota.giveBack(s.client);
      else quota.release(bound);
    }
    // no job was made: the image stored for it goes again
    if (bound === undefined && input.inline && assets) {
      for (const key of Object.values(assets)) await door.assets.remove(key).catch(() => {});
    }
    // the journal could not take the record: nothing was queued, the client may retry once space returns
    if (isNoSpace(err)) throw new Refused(journalUnwritable());
    throw err;
  }
}

/**
 * A scene job's args once they fit the scene they render (else 400 invalid_args, one entry per problem), with that
 * scene's name; undefined without args (or `{}`: the scene's defaults, as without). The source is parsed only (the
 * language's describeScene): what it renders is evaluated later, in the estimate's and the job's threads.
 */
function sceneArgs(kind: JobKind, b: EnqueueBody): { args: Record<string, unknown>; scene: string } | undefined {
  if (b.args === undefined || kind === 'mesh' || kind === 'vectorize') return undefined;
  const d = checkedSceneArgs(b.source ?? '', b.args);
  if (Object.keys(b.args).length === 0 || !d.scene) return undefined;
  return { args: b.args, scene: d.scene.name };
}

/**
 * The request's asset map, once every key is known to the asset store (else 400 unknown_asset) and, for a request
 * made with an API key, none is another key's upload (else 400 invalid_assets: keys are tenants, http/tenancy.ts).
 */
export async function knownAssets(
  assets: AssetStore,
  map: Record<string, string> | undefined,
  owner: string | undefined,
): Promise<Record<string, string>> {
  const out: [string, string][] = [];
  // two paths the page loads as one URL: the picture drawn would depend on the map's order, so neither is guessed
  const twice = sameUrlPaths(Object.keys(map ?? {}));
  if (twice)
    throw badRequest(
      CODE.invalid_assets,
      `assets["${twice[0]}"] and assets["${twice[1]}"] name one image (the page loads both as ${twice[2]}): map it once`,
    );
  const known = new Set<string>();
  for (const [path, key] of Object.entries(map ?? {})) {
    if (known.has(key)) {
      out.push([path, key]);
      continue;
    }
    known.add(key);
    if (!(await assets.exists(key)))
      throw badRequest(
        CODE.unknown_asset,
        `assets["${path}"]: unknown asset key "${key}" (upload the file with POST /v1/assets)`,
      );
    const belongs = owner === undefined ? undefined : await assets.ownerOf(key);
    if (belongs !== undefined && belongs !== owner)
      throw badRequest(
        CODE.invalid_assets,
        `assets["${path}"]: asset key "${key}" is not an upload of this API key (upload the file with it)`,
      );
    out.push([path, key]);
  }
  // in-source paths are keys, never properties (Object.fromEntries defines "__proto__" as an own key)
  return Object.fromEntries(out);
}

/** The webhook to store, once its host resolves to addresses this service may call (else 400 with the reason's code). */
export async function checkedWebhook(
  policy: WebhookPolicy,
  hook: { url: string; secret?: string } | undefined,
): Promise<WebhookState | undefined> {
  if (!hook) return undefined;
  try {
    await policy.check(hook.url);
  } catch (err) {
    if (err instanceof WebhookRefused) throw badRequest(err.code, err.message);
    throw err;
  }
  return hook.secret ? { url: hook.url, secret: hook.secret } : { url: hook.url };
}
