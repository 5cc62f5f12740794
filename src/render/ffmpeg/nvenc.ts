// Whether NVIDIA's encoder works on this machine (RENDER_ENCODER=nvenc is refused at start when it does not).
import { QUIET } from './flags.js';
import { runProcess } from './process.js';

/**
 * Whether NVENC can encode here: one small frame through h264_nvenc. Debian's ffmpeg lists the encoder everywhere
 * and loads NVIDIA's driver only when it opens, so listing proves nothing. Null when it works, else why not.
 */
export async function nvencProblem(ffmpegPath = 'ffmpeg'): Promise<string | null> {
  const input = ['-nostdin', '-f', 'lavfi', '-i', 'color=c=black:s=256x144:r=1'];
  const r = await runProcess(ffmpegPath, [
    ...QUIET,
    ...input,
    '-frames:v',
    '1',
    '-c:v',
    'h264_nvenc',
    '-f',
    'null',
    '-',
  ]);
  if (r.exitCode === 0) return null;
  if (r.error) return r.error.message;
  const lines = r.stderr.trim().split('\n').filter(Boolean);
  return lines.at(-2) ?? lines.at(-1) ?? `ffmpeg exited with ${r.exitCode}`;
}
