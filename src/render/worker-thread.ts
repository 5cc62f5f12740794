// Starting one of our worker threads (mesh and vectorize, admission estimates). Compiled to JS, the entry is the
// sibling .js file of the caller's bundle (dist/app/<name>.js); run from TypeScript (tsx, as the tests do) a worker
// does not inherit tsx's loader, so a one-line bootstrap registers it first.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/**
 * The heap of a thread that compiles and evaluates sources (eval-worker.ts: estimates and renders). The language bounds
 * a frame's value in nodes and JSON characters (EVL008, EVL013: at most 16 MiB of JSON, under 100 MB with its
 * tree and its text in flight); this is the backstop for what those do not foresee, so a source can never take the
 * whole process's memory: past it the thread alone stops, with ERR_WORKER_OUT_OF_MEMORY.
 */
export const EVAL_HEAP_LIMITS: ResourceLimits = { maxOldGenerationSizeMb: 384, maxYoungGenerationSizeMb: 32 };

/** Whether a worker's error is its heap passing its resourceLimits. */
export function outOfMemory(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
}

/** A worker running `<name>.ts` (or `.js` when compiled) next to the module whose import.meta.url is `callerUrl`. */
export function startWorker(callerUrl: string, name: string, resourceLimits?: ResourceLimits): Worker {
  if (fileURLToPath(callerUrl).endsWith('.js'))
    return new Worker(new URL(`./${name}.js`, callerUrl), { resourceLimits });
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, resourceLimits });
}
