// The join of a chunked video, the one both paths run (a queued job's join item, src/server/jobs/join-item.ts, and a
// render outside a queue, chunked-video.ts): its segments' packets copied end to end into the codec's file, no frame
// decoded or encoded again, and checked frame by frame, because ffmpeg's concat exits 0 when a segment after the
// first cannot be opened. A segment missing or short is a job failure coded video_incomplete, never a shorter video.
import { rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { VideoCodec } from '../../contract/outputs.js';
import { CODECS } from './codecs.js';
import { BITEXACT, QUIET } from './flags.js';
import { countFrames, ffprobeBeside } from './probe.js';
import { encoderFailed, runProcess } from './process.js';
import { JobFailure, VIDEO_INCOMPLETE, type JoinSegments } from '../renderer-port.js';

/**
 * The arguments of a join: the concat demuxer reads the list of segments (absolute paths) on stdin and copies their
 * packets, timestamps laid end to end, into the codec's file (MP4 or MOV with +faststart, or WebM; bit-exact).
 */
export function joinArgs(outPath: string, codec: VideoCodec = 'h264'): string[] {
  return [
    ...QUIET,
    '-y',
    ...['-f', 'concat', '-safe', '0', '-protocol_whitelist', 'file,pipe', '-i', 'pipe:0'],
    ...['-c', 'copy'],
    ...BITEXACT,
    ...CODECS[codec].finished,
    outPath,
  ];
}

/** A joined video would not have every frame it promised: a segment is missing, short, or the join lost frames. */
export class IncompleteVideo extends JobFailure {
  constructor(why: string) {
    super(`render failed: ${why}`, VIDEO_INCOMPLETE);
  }
}

/** The join with this service's ffmpeg, as the composition roots hand it to both paths. */
export function segmentJoiner(ffmpegPath: string): JoinSegments {
  return (segments, outPath, segmentFrames, codec) => joinSegments(segments, outPath, ffmpegPath, segmentFrames, codec);
}

/**
 * The concat list of the segments: the format quotes paths with single quotes, a quote inside written '\'' (file:
 * so that a list read from a pipe does not resolve them against pipe:).
 */
const concatList = (segments: readonly string[]): string =>
  segments.map((p) => `file 'file:${resolve(p).replace(/'/g, "'\\''")}'\n`).join('');

/**
 * Joins a video's segments (in order) into its file (MP4, WebM or MOV by codec) at outPath, written as outPath.tmp
 * then renamed. With `segmentFrames` (each segment's frame count, in order), every segment must be there with all
 * its frames, and so must the result; otherwise it throws IncompleteVideo and leaves no output.
 */
export async function joinSegments(
  segments: readonly string[],
  outPath: string,
  ffmpegPath = 'ffmpeg',
  segmentFrames?: readonly number[],
  codec: VideoCodec = 'h264',
): Promise<void> {
  const ffprobe = ffprobeBeside(ffmpegPath);
  if (segmentFrames) {
    if (segmentFrames.length !== segments.length)
      throw new IncompleteVideo(`${segments.length} segments for ${segmentFrames.length} chunks`);
    for (const [i, p] of segments.entries()) {
      const n = await countFrames(p, ffprobe);
      if (n !== segmentFrames[i])
        throw new IncompleteVideo(
          n === 0
            ? `chunk ${i + 1} of ${segments.length} is missing`
            : `chunk ${i + 1} of ${segments.length} has ${n} of its ${segmentFrames[i]} frames`,
        );
    }
  }
  const tmp = `${outPath}.tmp`;
  const r = await runProcess(ffmpegPath, joinArgs(tmp, codec), { input: concatList(segments) });
  if (r.exitCode !== 0) {
    await rm(tmp, { force: true });
    throw encoderFailed(
      `ffmpeg join exited with ${r.exitCode}: ${(r.error?.message ?? r.stderr).trim().slice(0, 500)}`,
    );
  }
  if (segmentFrames) {
    const want = segmentFrames.reduce((a, b) => a + b, 0);
    const got = await countFrames(tmp, ffprobe);
    if (got !== want) {
      await rm(tmp, { force: true });
      throw new IncompleteVideo(`the joined video has ${got} of its ${want} frames`);
    }
  }
  await rename(tmp, outPath);
}
