// The one typed module that spawns ffmpeg and ffprobe.
// Video: raw RGBA frames on stdin -> H.264 (libx264), yuv420p, bt709 tags, +faststart, settings fixed so the same
// frames give the same bytes every run (fixed thread count, bit-exact muxing, no metadata).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

export interface EncoderOptions {
  ffmpegPath?: string;
  width: number;
  height: number;
  fps: number;
  outPath: string;
  /** x264 CRF, default 18 */
  crf?: number;
  /** x264 preset, default "veryfast" */
  preset?: string;
}

/** The exact ffmpeg arguments of a video encode (exported for tests and docs). */
export function encoderArgs(o: EncoderOptions): string[] {
  return [
    '-hide_banner', '-loglevel', 'error', '-nostdin', '-y',
    '-f', 'rawvideo', '-pix_fmt', 'rgba', '-s', `${o.width}x${o.height}`, '-framerate', String(o.fps),
    '-i', 'pipe:0',
    '-an', '-sn', '-dn',
    // swscale's fast path: deterministic on a given machine; its bit-exact C path costs 3x the encode time.
    '-vf', 'scale=out_color_matrix=bt709:out_range=tv,format=yuv420p',
    '-c:v', 'libx264', '-preset', o.preset ?? 'veryfast', '-crf', String(o.crf ?? 18), '-tune', 'animation',
    '-threads', '2', '-x264-params', 'threads=2:lookahead-threads=1:sliced-threads=0',
    '-pix_fmt', 'yuv420p', '-colorspace', 'bt709', '-color_primaries', 'bt709', '-color_trc', 'bt709', '-color_range', 'tv',
    '-r', String(o.fps),
    '-map_metadata', '-1', '-fflags', '+bitexact', '-flags:v', '+bitexact', '-bitexact',
    '-movflags', '+faststart',
    '-f', 'mp4', o.outPath,
  ];
}

/** One ffmpeg process per video job: write frames in order, then finish(). */
export class VideoEncoder {
  private readonly proc: ChildProcess;
  private stderr = '';
  private readonly exited: Promise<number | null>;
  private failed: Error | null = null;
  readonly frameBytes: number;

  constructor(private readonly o: EncoderOptions) {
    this.frameBytes = o.width * o.height * 4;
    this.proc = spawn(o.ffmpegPath ?? 'ffmpeg', encoderArgs(o), { stdio: ['pipe', 'ignore', 'pipe'] });
    this.proc.stderr!.setEncoding('utf8');
    this.proc.stderr!.on('data', (d: string) => {
      if (this.stderr.length < 8192) this.stderr += d;
    });
    this.proc.stdin!.on('error', (e) => {
      this.failed ??= e;
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('error', (e) => {
        this.failed ??= e;
        resolve(null);
      });
      this.proc.on('close', (code) => resolve(code));
    });
  }

  /** Writes one RGBA frame; resolves when ffmpeg can take more (back-pressure). */
  async write(frame: Uint8Array): Promise<void> {
    if (this.failed) throw new Error(`ffmpeg failed: ${this.failed.message} ${this.stderr}`.trim());
    if (frame.length !== this.frameBytes) throw new Error(`frame has ${frame.length} bytes, expected ${this.frameBytes}`);
    const stdin = this.proc.stdin!;
    if (!stdin.write(frame)) {
      await Promise.race([once(stdin, 'drain'), this.exited.then(() => { throw new Error(`ffmpeg exited early: ${this.stderr.trim()}`); })]);
    }
  }

  /** Closes stdin and waits for ffmpeg to finish the file. */
  async finish(): Promise<void> {
    this.proc.stdin!.end();
    const code = await this.exited;
    if (code !== 0) throw new Error(`ffmpeg exited with ${code}: ${this.stderr.trim().slice(0, 500)}`);
  }

  kill(): void {
    this.proc.stdin!.destroy();
    this.proc.kill('SIGKILL');
  }
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
  const args = ['-v', 'error', '-select_streams', 'v:0', '-count_frames', '-show_entries', 'stream=codec_name,pix_fmt,width,height,nb_read_frames,color_space:format=duration', '-of', 'json', path];
  const proc = spawn(ffprobePath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout.setEncoding('utf8').on('data', (d) => (out += d));
  proc.stderr.setEncoding('utf8').on('data', (d) => (err += d));
  const [code] = (await once(proc, 'close')) as [number];
  if (code !== 0) throw new Error(`ffprobe exited with ${code}: ${err.trim()}`);
  const j = JSON.parse(out) as { streams: Record<string, string>[]; format: { duration: string } };
  const s = j.streams[0];
  return { codec: s.codec_name, pixFmt: s.pix_fmt, width: Number(s.width), height: Number(s.height), frames: Number(s.nb_read_frames), duration: Number(j.format.duration), colorSpace: s.color_space };
}

/** True when the binary runs (`-version`). */
export async function available(bin: string): Promise<boolean> {
  try {
    const p = spawn(bin, ['-version'], { stdio: 'ignore' });
    const [code] = (await once(p, 'close')) as [number];
    return code === 0;
  } catch {
    return false;
  }
}
