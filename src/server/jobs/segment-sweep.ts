// The chunk segments a crashed process left behind (a chunked video whose join never ran): a job's segments go once
// its newest is past the retention (RETENTION_MS), when a process starts to render. Apart from the lifecycle: it
// reads and removes stored files only, never a record.
import type { Storage } from '../storage/storage.js';

/** Removes every job's segments whose newest was written at or before `cutoff` (epoch ms). */
export async function sweepStaleSegments(segments: Storage, cutoff: number): Promise<void> {
  for (const job of await segments.list()) {
    const times = [];
    for (const key of await segments.list(job)) times.push((await segments.stat(key))?.mtimeMs ?? 0);
    if (Math.max(0, ...times) <= cutoff) await segments.remove(job);
  }
}
