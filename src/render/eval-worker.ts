// The thread that estimates a job at admission and evaluates its frames (eval-thread.ts): compiling a source and
// evaluating one time may take a large part of the step budget (EVL006, 200,000 steps: tens of milliseconds a
// frame, more on a loaded machine), and a clip evaluates thousands of times; on the main thread that held every HTTP
// answer of the service. Here a job's program is compiled once, by its estimate, and kept by its key
// (program-cache.ts) for its renders; what goes back is JSON text, sent once per distinct value.
import { parentPort } from 'node:worker_threads';
import { evaluateAt, prepare, type Plan } from './prepare.js';
import { JobFailure, type RenderJob } from './renderer-port.js';
import { PROGRAMS_KEPT, ProgramCache, programKey } from './program-cache.js';
import { estimateWork } from './work-estimate.js';
import type { FailureData, EvalAnswer, EvalRequest, EstimateInput, PlanData, RemoteFrame } from './eval-protocol.js';

/** A batch of frames ends after this much work or this much JSON, so the renderer gets frames while more are made. */
const BATCH_MS = 20;
const BATCH_BYTES = 4 << 20;

let plan: Plan | null = null;
/** the programs this thread compiled lately, by key: a job's estimate and its renders share one */
const programs = new ProgramCache(PROGRAMS_KEPT);
/** the first frame is frame 0 of a clip (prepare evaluates a clip at t = 0) */
let firstIsFrame0 = false;
/** the frame index evaluated last, and its JSON: a frame with the same JSON goes back as null (a repeat) */
let lastIndex = -1;
let lastJson: string | null = null;
/** the reader the last batch went to */
let lastSeq = -1;

function failureData(err: unknown): FailureData {
  if (err instanceof JobFailure) return { message: err.message, code: err.code, diagnostics: err.diagnostics };
  return { internal: err instanceof Error ? (err.stack ?? err.message) : String(err) };
}

function estimate(job: EstimateInput): EvalAnswer {
  const before = programs.compiles;
  let e = null;
  try {
    e = estimateWork(job, programs);
  } catch {
    e = null; // no estimate: the job is queued and fails, if it must, with its own diagnostic
  }
  const program = e?.program ?? programKey(job.source, job.args);
  return { op: 'estimated', estimate: e, compiled: programs.compiles - before, program };
}

function open(job: RenderJob): EvalAnswer {
  plan = null;
  lastSeq = -1;
  const before = programs.compiles;
  const program = job.prepared?.program ?? programKey(job.source, job.args);
  try {
    plan = prepare(job, programs);
  } catch (err) {
    return { op: 'failed', failure: failureData(err), compiled: programs.compiles - before, program };
  }
  const { program: _program, assets: _assets, first, ...info } = plan;
  const { value: _value, ...sent } = first;
  firstIsFrame0 = job.kind !== 'frame';
  const compiled = programs.compiles - before;
  return { op: 'opened', plan: { ...info, first: sent } satisfies PlanData, compiled, program };
}

function frames(seq: number, from: number, to: number): EvalAnswer {
  const out: RemoteFrame[] = [];
  if (!plan) return { op: 'frames', seq, from, frames: out, failure: { internal: 'no job is open' } };
  if (seq !== lastSeq) {
    // a new reader knows only the first frame (frame 0 of a clip)
    lastSeq = seq;
    lastJson = from === 1 && firstIsFrame0 ? plan.first.json : null;
  } else if (from !== lastIndex + 1) lastJson = null;
  const t0 = performance.now();
  let bytes = 0;
  for (let i = from; i < to; i++) {
    let f;
    try {
      f = evaluateAt(plan.program, i / plan.fps);
    } catch (err) {
      return { op: 'frames', seq, from, frames: out, failure: failureData(err) };
    }
    const repeat = f.json === lastJson;
    out.push({ json: repeat ? null : f.json, nodes: f.nodes, steps: f.steps, images: repeat ? [] : f.images });
    lastIndex = i;
    lastJson = f.json;
    if (!repeat) bytes += f.json.length;
    if (performance.now() - t0 > BATCH_MS || bytes > BATCH_BYTES) break;
  }
  return { op: 'frames', seq, from, frames: out };
}

parentPort?.on('message', (m: EvalRequest) => {
  parentPort!.postMessage(
    m.op === 'estimate' ? estimate(m.job) : m.op === 'open' ? open(m.job) : frames(m.seq, m.from, m.to),
  );
});
