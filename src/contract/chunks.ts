// A long video's chunks, the one plan both paths follow (a queued job's chunk and join items, src/server/jobs/, and a
// render outside a queue, src/render/chunked-video.ts): where it cuts (consecutive ranges of LIMITS.videoChunkFrames
// frames, the last one shorter, so the joined output has the same bytes everywhere), the frames each segment must
// hold at the join (src/render/ffmpeg/join.ts), and the chunks' stage times as one job's.
import { LIMITS } from './limits.js';

export interface FrameRange {
  /** first frame (inclusive) */
  from: number;
  /** last frame (exclusive) */
  to: number;
}

/** The chunks of a video of `frames` frames; one range when it fits in one chunk. */
export function chunkRanges(frames: number, size: number = LIMITS.videoChunkFrames): FrameRange[] {
  const out: FrameRange[] = [];
  for (let from = 0; from < frames; from += size) out.push({ from, to: Math.min(frames, from + size) });
  return out;
}

/** Whether a video of this many frames is rendered in chunks (more than one). */
export function isChunked(frames: number): boolean {
  return frames > LIMITS.videoChunkFrames;
}

/** Each chunk's frame count, in order: what the join checks each segment holds. */
export function chunkFrames(frames: number): number[] {
  return chunkRanges(frames).map((r) => r.to - r.from);
}

/** A chunked video's stage times as one job's: its chunks' summed, how it was cut, and the join's own time (ms). */
export function chunkedTimings(
  chunks: readonly { ms: number; timings: object }[],
  joinMs: number,
): Record<string, number> {
  const sums: Record<string, number> = {};
  for (const c of chunks)
    for (const [k, v] of Object.entries(c.timings) as [string, unknown][])
      if (typeof v === 'number') sums[k] = (sums[k] ?? 0) + v;
  const ms = chunks.map((c) => c.ms);
  return {
    ...Object.fromEntries(Object.entries(sums).map(([k, v]) => [k, Math.round(v)])),
    chunks: chunks.length,
    chunk_max_ms: Math.round(Math.max(...ms)),
    chunk_sum_ms: Math.round(ms.reduce((a, b) => a + b, 0)),
    join_ms: Math.round(joinMs),
  };
}
