// MP4 and WebM in the browser: WebCodecs encodes, mediabunny muxes. Each frame is the drawer's I420 (the bytes the
// service's ffmpeg gets, src/contract/yuv.ts) tagged BT.709 limited range as src/render/ffmpeg/codecs.ts tags its videos,
// timestamped by its index (i / fps), never by the wall clock, so the file is frame-exact however slow the drawing.
import {
  BufferTarget,
  Mp4OutputFormat,
  Output,
  QUALITY_VERY_HIGH,
  StreamTarget,
  VideoSample,
  VideoSampleSource,
  WebMOutputFormat,
  canEncodeVideo,
  type VideoCodec,
} from 'mediabunny';
import { BrowserExportError, type ExportPlan } from './export-plan.js';
import type { ExportFrames } from './export-frames.js';
import type { Destination, ExportResult, Step } from './export-types.js';

/** Codecs by container, best first: H.264 where the browser has it (else AV1) in MP4; VP9, AV1, VP8 in WebM. */
export const VIDEO_CODECS: Record<'mp4' | 'webm', VideoCodec[]> = { mp4: ['avc', 'av1'], webm: ['vp9', 'av1', 'vp8'] };

/** The service's colour tags: -colorspace/-color_primaries/-color_trc bt709, -color_range tv. */
const BT709_TV = { primaries: 'bt709', transfer: 'bt709', matrix: 'bt709', fullRange: false } as const;

/** Seconds between key frames (mediabunny's default). */
const KEY_FRAME_INTERVAL = 2;

/** The codecs of `format` this browser can encode at the plan's size, best first (none: no WebCodecs either). */
export async function encodableCodecs(
  plan: Pick<ExportPlan, 'format' | 'width' | 'height' | 'fps'>,
): Promise<VideoCodec[]> {
  if (plan.format !== 'mp4' && plan.format !== 'webm') return [];
  if (typeof VideoEncoder === 'undefined') return [];
  const opts = { width: plan.width, height: plan.height, frameRate: plan.fps, quality: QUALITY_VERY_HIGH };
  const ok = await Promise.all(VIDEO_CODECS[plan.format].map((c) => canEncodeVideo(c, opts).catch(() => false)));
  return VIDEO_CODECS[plan.format].filter((_, i) => ok[i]);
}

/**
 * Encodes the plan's frames. A codec that fails to encode (a browser may claim one it cannot use) gives way to the
 * next encodable one while the file is still in memory; into a file on disk the first failure is the answer.
 */
export async function encodeVideo(
  plan: ExportPlan,
  frames: ExportFrames,
  dest: Destination,
  step: Step,
  signal: AbortSignal,
): Promise<ExportResult> {
  const format = plan.format as 'mp4' | 'webm';
  const codecs = await encodableCodecs(plan);
  if (codecs.length === 0) {
    const names = VIDEO_CODECS[format].join(', ');
    throw new BrowserExportError(
      typeof VideoEncoder === 'undefined'
        ? 'this browser has no video encoder (WebCodecs): use the server render'
        : `this browser cannot encode ${format.toUpperCase()} (${names}) at ${plan.width}x${plan.height}: use the server render`,
    );
  }
  let last: unknown;
  for (const codec of codecs) {
    try {
      return await encodeWith(codec, plan, frames, dest, step, signal);
    } catch (e) {
      if (signal.aborted || e instanceof BrowserExportError || dest.kind === 'file') throw e;
      last = e;
    }
  }
  throw new BrowserExportError(`the browser's encoder failed: ${last instanceof Error ? last.message : String(last)}`);
}

async function encodeWith(
  codec: VideoCodec,
  plan: ExportPlan,
  frames: ExportFrames,
  dest: Destination,
  step: Step,
  signal: AbortSignal,
): Promise<ExportResult> {
  const toFile = dest.kind === 'file';
  const output = new Output({
    // in memory the index goes first (the service's +faststart); into a file it follows the frames, so memory
    // stays bounded by a frame or two whatever the clip's length
    format:
      plan.format === 'mp4' ? new Mp4OutputFormat({ fastStart: toFile ? false : 'in-memory' }) : new WebMOutputFormat(),
    target: toFile ? new StreamTarget(dest.writable) : new BufferTarget(),
  });
  const source = new VideoSampleSource({
    codec,
    quality: QUALITY_VERY_HIGH,
    keyFrameInterval: KEY_FRAME_INTERVAL,
    latencyMode: 'quality',
    sizeChangeBehavior: 'deny',
  });
  output.addVideoTrack(source, { frameRate: plan.fps });
  const stop = () => void output.cancel();
  signal.addEventListener('abort', stop, { once: true });
  try {
    await output.start();
    for (let i = 0; i < plan.frames; i++) {
      if (signal.aborted) break;
      await frames.drawAt(i / plan.fps);
      if (signal.aborted) break;
      const sample = new VideoSample(frames.i420(), {
        format: 'I420',
        codedWidth: plan.width,
        codedHeight: plan.height,
        timestamp: i / plan.fps,
        duration: 1 / plan.fps,
        colorSpace: BT709_TV,
      });
      try {
        // awaited: the encoder's backpressure keeps at most a frame or two in hand
        await source.add(sample);
      } finally {
        sample.close();
      }
      step(i + 1);
    }
    if (signal.aborted) throw signal.reason;
    source.close();
    await output.finalize();
  } catch (e) {
    if (output.state !== 'canceled' && output.state !== 'finalized') await output.cancel().catch(() => {});
    throw e;
  } finally {
    signal.removeEventListener('abort', stop);
  }
  const type = await output.getMimeType().catch(() => output.format.mimeType);
  const bytes = output.target instanceof BufferTarget ? new Uint8Array(output.target.buffer!) : null;
  return { bytes, type, codec, extension: plan.format };
}
