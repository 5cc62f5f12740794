// Joining a chunked video's segments, in order, into the codec's file without re-encoding (ffmpeg/join.ts's
// joinSegments), after checking each has its frames: a segment missing or short is a JobFailure coded
// video_incomplete, never a shorter video. What the join item runs (src/server/jobs/join-item.ts).
import { IncompleteVideo, joinSegments } from './ffmpeg/join.js';
import { JobFailure, VIDEO_INCOMPLETE } from './renderer-port.js';
import type { VideoCodec } from '../contract/outputs.js';

export type JoinSegments = (
  segments: string[],
  outPath: string,
  segmentFrames: number[],
  codec?: VideoCodec,
) => Promise<void>;

export function segmentJoiner(ffmpegPath: string): JoinSegments {
  return async (segments, outPath, segmentFrames, codec) => {
    try {
      await joinSegments(segments, outPath, ffmpegPath, segmentFrames, codec);
    } catch (err) {
      if (err instanceof IncompleteVideo) throw new JobFailure(`render failed: ${err.message}`, VIDEO_INCOMPLETE);
      throw err;
    }
  };
}
