// The join item of a chunked video: once every chunk is rendered (in any process), their segments come down to
// scratch, ffmpeg joins them into the output (src/render/ffmpeg/join.ts, the same join the runner's chunked videos
// use), the joined file is held against the output budget, and the job ends ready with the chunks' stage times summed
// (src/contract/chunks.ts, as the runner's are).
// A chunk missing or short ends the job `video_incomplete`, never a shorter video reported ready; every failure
// leaves through the one ItemEnds.fail, which removes the segments.
import { rm } from 'node:fs/promises';
import type { Logger } from 'pino';
import { CODE } from '../../contract/error-codes.js';
import { chunkedTimings, chunkFrames } from '../../contract/chunks.js';
import { JobFailure, VIDEO_INCOMPLETE } from '../../render/renderer-port.js';
import type { JoinSegments } from '../../render/renderer-port.js';
import type { OutputStore } from '../storage/output-store.js';
import { StorageUnavailable, type Storage } from '../storage/storage.js';
import type { JobRecord } from './store/port.js';
import type { ItemHandle, ItemOutcome } from './queue/port.js';
import { segmentKey, type WorkItem } from './work-items.js';
import { endOf, failureOf } from './job-failure.js';
import { OutputWatch } from './output-watch.js';
import type { ItemEnds } from './item-ends.js';

export interface JoinItemOptions {
  ends: ItemEnds;
  joinSegments: JoinSegments;
  outputs: OutputStore;
  segments: Storage;
  jobTimeoutMs: number;
  /** a local scratch directory for one item (gone when the item ends) */
  scratch: (name: string) => string;
  log: Logger;
}

type JoinItem = Extract<WorkItem, { part: 'join' }>;

/** Runs the join item of a job whose record is pending and started. */
export async function joinChunks(
  o: JoinItemOptions,
  item: JoinItem,
  rec: JobRecord,
  h: ItemHandle,
): Promise<ItemOutcome> {
  const id = rec.job_id;
  const results = (await h.chunkResults()).filter((r) => typeof r === 'object');
  const first = results[0];
  if (!first || results.length !== item.chunks)
    return o.ends.fail(rec, 'join', endOf(CODE.video_incomplete, 'render failed: a chunk of the video is missing'));
  const t0 = performance.now();
  let timings: Record<string, number>;
  let kept: boolean;
  try {
    await joinFiles(o, item, rec);
    timings = chunkedTimings(results, performance.now() - t0);
    kept = await o.ends.ready(
      rec,
      { width: first.width, height: first.height, runner: first.runner, frames: item.frames },
      timings,
    );
  } catch (err) {
    o.log.warn({ err, job_id: id }, 'joining the chunks failed');
    await o.outputs.discard(id, rec.kind, rec.params);
    // a segment missing or short (a worker that wrote it elsewhere, a store that lost it): said as such, never a
    // shorter video reported ready
    return o.ends.fail(rec, 'join', failureOf(err, { timedOut: false, limitMs: o.jobTimeoutMs }));
  }
  // told before the segments go: the job is ready for clients already. The chunks' frames were counted as they
  // were drawn: the join adds its own time only
  if (kept) o.ends.tell(rec, 'join', 'ready', 0, { join_ms: timings.join_ms });
  else o.ends.stopped(rec, 'join');
  await o.ends.cleanSegments(id);
  return kept ? { status: 'ready' } : { status: 'stopped' };
}

/** The segments down to scratch and joined into the output's scratch file, held against the output budget. */
async function joinFiles(o: JoinItemOptions, item: JoinItem, rec: JobRecord): Promise<void> {
  const id = rec.job_id;
  const scratch = o.scratch(`${id}-join`);
  try {
    const segments: string[] = [];
    for (let i = 0; i < item.chunks; i++)
      segments.push(
        await o.segments.download(segmentKey(id, i), scratch).catch((err: unknown) => {
          if (err instanceof StorageUnavailable) throw err;
          throw new JobFailure(`render failed: chunk ${i + 1} of ${item.chunks} is missing`, VIDEO_INCOMPLETE);
        }),
      );
    const outPath = await o.outputs.scratchPath(id, rec.kind, rec.params);
    await o.joinSegments(segments, outPath, chunkFrames(item.frames), rec.params.codec);
    // the joined file is what is kept (its segments go after): it alone is held against the budget
    await o.outputs.refreshCount();
    const full = await new OutputWatch(o.outputs, outPath, 0).overBudget();
    if (full) throw full;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
