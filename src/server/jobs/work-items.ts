// The pieces of work a job is queued as, whichever queue holds them (jobs/queue/local.ts, jobs/queue/bullmq.ts): a
// job in one piece, or a video of more than one chunk (src/contract/chunks.ts) as its chunks plus a join that runs
// once every chunk is done. Planned once, from the frame count admission kept on the record.
import { chunkRanges, isChunked } from '../../contract/chunks.js';
import type { JobRecord } from './store/port.js';

export type WorkItem =
  | { id: string; part: 'whole' }
  | { id: string; part: 'chunk'; index: number; from: number; to: number }
  | { id: string; part: 'join'; chunks: number; frames: number };

export type PartName = WorkItem['part'];

/** A job's items: `whole` alone, or the chunks in order and the join that waits on them. */
export function itemsOf(rec: JobRecord): { whole: WorkItem } | { chunks: WorkItem[]; join: WorkItem } {
  const id = rec.job_id;
  const frames = rec.frames;
  if (rec.kind !== 'video' || frames === undefined || !isChunked(frames)) return { whole: { id, part: 'whole' } };
  const ranges = chunkRanges(frames);
  return {
    chunks: ranges.map((r, index) => ({ id, part: 'chunk', index, from: r.from, to: r.to })),
    join: { id, part: 'join', chunks: ranges.length, frames },
  };
}

/** What a chunk hands its join: the frames' size and runner, and where its time went. */
export interface ChunkResult {
  width: number;
  height: number;
  runner: string;
  frames: number;
  ms: number;
  timings: Record<string, number>;
}

/** The storage key (in the storage's `segments` area) of chunk `index` of job `id`, under the job's own key. */
export const segmentKey = (id: string, index: number) => `${id}/${String(index).padStart(4, '0')}.ts`;
