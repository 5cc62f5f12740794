// ffprobe: what a written file holds (codec, pixel format, size, frames, duration), read by the tests and by the
// join's check that no frame went missing.
import { runProcess } from './process.js';

/** ffprobe beside the configured ffmpeg (FFMPEG_PATH=/opt/x/ffmpeg means /opt/x/ffprobe). */
export const ffprobeBeside = (ffmpegPath = 'ffmpeg'): string => ffmpegPath.replace(/ffmpeg$/, 'ffprobe');

/** The video packets (frames) a file holds, read from its container without decoding; 0 when it cannot be read. */
export async function countFrames(path: string, ffprobePath = 'ffprobe'): Promise<number> {
  const args = ['-v', 'error', '-select_streams', 'v:0', '-count_packets'];
  const r = await runProcess(
    ffprobePath,
    [...args, '-show_entries', 'stream=nb_read_packets', '-of', 'csv=p=0', path],
    {
      stdout: true,
    },
  );
  const n = Number.parseInt(r.stdout.trim(), 10);
  return r.exitCode === 0 && Number.isFinite(n) ? n : 0;
}

export interface ProbeResult {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  frames: number;
  duration: number;
  colorSpace?: string;
}

/** ffprobe of the first video stream: codec, pixel format, size, exact frame count and duration. */
export async function probe(path: string, ffprobePath = 'ffprobe'): Promise<ProbeResult> {
  const entries = 'stream=codec_name,pix_fmt,width,height,nb_read_frames,color_space:format=duration';
  const args = [
    '-v',
    'error',
    '-select_streams',
    'v:0',
    '-count_frames',
    '-show_entries',
    entries,
    '-of',
    'json',
    path,
  ];
  const r = await runProcess(ffprobePath, args, { stdout: true });
  if (r.exitCode !== 0) throw new Error(`ffprobe exited with ${r.exitCode}: ${(r.error?.message ?? r.stderr).trim()}`);
  const j = JSON.parse(r.stdout) as { streams: Record<string, string>[]; format: { duration: string } };
  const s = j.streams[0];
  return {
    codec: s.codec_name,
    pixFmt: s.pix_fmt,
    width: Number(s.width),
    height: Number(s.height),
    frames: Number(s.nb_read_frames),
    duration: Number(j.format.duration),
    colorSpace: s.color_space,
  };
}
