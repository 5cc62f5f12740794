// The stores one process holds: records in memory (tests, the OpenAPI writer), and locally(), which makes any store
// this process alone writes (memory, the journal) a LifecycleStore by chaining each job's check and write. Its count
// of ended jobs lives in this process, so the service rebuilds it from the records at start (EndedCap's seed).
import { storedForm, type JobRecord, type JobStore, type LifecycleStore } from './port.js';

/** A store held by one process as a LifecycleStore: each job's check and write are chained, so none interleave. */
export function locally(store: JobStore): LifecycleStore {
  const chains = new Map<string, Promise<unknown>>();
  const serial = <T>(id: string, step: () => Promise<T>): Promise<T> => {
    const run = (chains.get(id) ?? Promise.resolve()).then(step, step);
    const tail = run.catch(() => {});
    chains.set(id, tail);
    void tail.then(() => {
      if (chains.get(id) === tail) chains.delete(id);
    });
    return run;
  };
  const ifPending = (rec: JobRecord, write: () => Promise<void>) =>
    serial(rec.job_id, async () => {
      const cur = await store.get(rec.job_id);
      if (cur?.status !== 'pending') return false;
      await write();
      return true;
    });
  // oldest-ended first: a Set keeps insertion order, and a job that ends again is moved to the end
  const ended = new Set<string>();
  return {
    get: (id) => store.get(id),
    put: (rec) => serial(rec.job_id, () => store.put(rec)),
    delete: (id) => store.delete(id),
    list: () => store.list(),
    markStarted: async (rec, at) => {
      const won = await ifPending(rec, () => store.put({ ...rec, started_at: at }));
      if (won) rec.started_at = at;
      return won;
    },
    endIfPending: (rec) => ifPending(rec, () => store.put(rec)),
    async keepEnded(id, _endedAt, cap) {
      ended.delete(id);
      ended.add(id);
      const gone: string[] = [];
      for (const oldest of ended) {
        if (ended.size - gone.length <= cap) break;
        gone.push(oldest);
      }
      for (const g of gone) ended.delete(g);
      return gone;
    },
  };
}

/** In-memory store. Records are copied in and out so callers never share mutable state with the store. */
export class MemoryJobStore implements JobStore {
  private readonly map = new Map<string, JobRecord>();
  async get(id: string) {
    const r = this.map.get(id);
    return r ? structuredClone(r) : undefined;
  }
  async put(rec: JobRecord) {
    this.map.set(rec.job_id, structuredClone(storedForm(rec)));
  }
  async delete(id: string) {
    this.map.delete(id);
  }
  async list() {
    return [...this.map.values()].map((r) => structuredClone(r));
  }
}
