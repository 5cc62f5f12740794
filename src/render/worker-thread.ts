// Starting one of our worker threads (mesh and vectorize, admission estimates). Compiled to JS, the entry is the
// sibling .js file of the caller's bundle (dist/app/<name>.js); run from TypeScript (tsx, as the tests do) a worker
// does not inherit tsx's loader, so a one-line bootstrap registers it first.
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';

/** A worker running `<name>.ts` (or `.js` when compiled) next to the module whose import.meta.url is `callerUrl`. */
export function startWorker(callerUrl: string, name: string, resourceLimits?: ResourceLimits): Worker {
  if (fileURLToPath(callerUrl).endsWith('.js'))
    return new Worker(new URL(`./${name}.js`, callerUrl), { resourceLimits });
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const api = import.meta.resolve('tsx/esm/api');
  const boot = `import(${JSON.stringify(api)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(boot, { eval: true, resourceLimits });
}
