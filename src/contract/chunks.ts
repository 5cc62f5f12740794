// Where a video's chunks cut: consecutive ranges of LIMITS.videoChunkFrames frames, the last one shorter. The same
// for the embedded service and any number of workers, so the joined output has the same bytes everywhere.
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
