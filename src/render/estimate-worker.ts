// The thread that makes admission estimates (estimate-thread.ts): compiling a source and evaluating its first frame
// takes tens of milliseconds for a large scene, which on the main thread would hold every HTTP answer of a burst.
import { parentPort } from 'node:worker_threads';
import { CompileCache } from '../lang/index.js';
import { estimateWork } from './work-estimate.js';
import type { RenderJob, WorkEstimate } from './renderer-port.js';

export interface EstimateRequest {
  id: number;
  job: Pick<RenderJob, 'kind' | 'source' | 'params' | 'assets' | 'args'>;
}
export interface EstimateAnswer {
  id: number;
  estimate: WorkEstimate | null;
}

/** the parse and check of the sources estimated lately: requests of one scene with other args share them */
const compiled = new CompileCache(8);

parentPort?.on('message', (m: EstimateRequest) => {
  let estimate: WorkEstimate | null = null;
  try {
    estimate = estimateWork(m.job, compiled);
  } catch {
    estimate = null; // no estimate: the job is queued and fails, if it must, with its own diagnostic
  }
  parentPort!.postMessage({ id: m.id, estimate } satisfies EstimateAnswer);
});
