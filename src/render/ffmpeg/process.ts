// The ffmpeg and ffprobe processes: one fed raw frames on stdin with back-pressure (RawFramePipe, behind the video
// encoder, the stills and the GIF's passes), and one run to its end with an optional stdin text (runProcess, behind
// joins, probes and the NVENC check). Both keep the first 8 KiB of stderr for the failure message, since ffmpeg says
// why it failed there and nowhere else.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { CODE } from '../../contract/error-codes.js';
import { StageFault } from '../failure-reasons.js';

/** How much of stderr a failure message carries at most. */
const STDERR_KEPT = 8192;

export interface ProcessResult {
  /** the exit code, or null when the process could not start or ended by a signal */
  exitCode: number | null;
  stdout: string;
  stderr: string;
  /** why it could not start (ENOENT, ...) */
  error?: Error;
}

/**
 * Runs a binary to its end: stdin is `input` (closed at once) or nothing, stdout kept when asked. Never rejects: a
 * binary that cannot start resolves with exitCode null and its error.
 */
export async function runProcess(
  bin: string,
  args: string[],
  o: { input?: string; stdout?: boolean } = {},
): Promise<ProcessResult> {
  const r: ProcessResult = { exitCode: null, stdout: '', stderr: '' };
  let proc: ChildProcess;
  try {
    proc = spawn(bin, args, {
      stdio: [o.input === undefined ? 'ignore' : 'pipe', o.stdout ? 'pipe' : 'ignore', 'pipe'],
    });
  } catch (e) {
    return { ...r, error: e as Error };
  }
  proc.stdout?.setEncoding('utf8').on('data', (d: string) => (r.stdout += d));
  proc.stderr!.setEncoding('utf8').on('data', (d: string) => {
    if (r.stderr.length < STDERR_KEPT) r.stderr += d;
  });
  if (proc.stdin) {
    proc.stdin.on('error', () => {});
    proc.stdin.end(o.input);
  }
  // a binary that cannot start emits 'error' (and maybe 'close' after it): the first of the two decides
  await new Promise<void>((resolve) => {
    proc.once('error', (e) => {
      r.error ??= e;
      resolve();
    });
    proc.once('close', (code) => {
      if (!r.error) r.exitCode = code;
      resolve();
    });
  });
  return r;
}

/** True when the binary runs (`-version`). */
export async function available(bin: string): Promise<boolean> {
  return (await runProcess(bin, ['-version'])).exitCode === 0;
}

/**
 * One ffmpeg process fed raw frames of a fixed size on stdin, with back-pressure, that writes its output file
 * itself. The video encoder, the stills and the two GIF passes are all this with different arguments.
 */
export class RawFramePipe {
  private readonly proc: ChildProcess;
  private stderr = '';
  private readonly exited: Promise<number | null>;
  private failed: Error | null = null;
  /** exit code or signal once the process has ended */
  private ended: number | string | null = null;

  constructor(
    ffmpegPath: string | undefined,
    args: string[],
    readonly frameBytes: number,
  ) {
    this.proc = spawn(ffmpegPath ?? 'ffmpeg', args, { stdio: ['pipe', 'ignore', 'pipe'] });
    this.proc.stderr!.setEncoding('utf8');
    this.proc.stderr!.on('data', (d: string) => {
      if (this.stderr.length < STDERR_KEPT) this.stderr += d;
    });
    this.proc.stdin!.on('error', (e) => {
      this.failed ??= e;
    });
    // Node destroys stdin when the child exits, so writes after a crash would vanish without an error: remember it
    this.proc.on('exit', (code, signal) => {
      this.ended = signal ?? code;
    });
    this.exited = new Promise((resolve) => {
      this.proc.on('error', (e) => {
        this.failed ??= e;
        resolve(null);
      });
      this.proc.on('close', (code) => resolve(code));
    });
  }

  /** Writes one frame; resolves when ffmpeg can take more (back-pressure). */
  async write(frame: Uint8Array): Promise<void> {
    if (this.failed) throw encoderFailed(`ffmpeg failed: ${this.failed.message} ${this.stderr}`);
    if (this.ended !== null || this.proc.stdin!.destroyed)
      throw encoderFailed(`ffmpeg exited early (${this.ended ?? 'stdin closed'}): ${this.stderr.trim()}`);
    if (frame.length !== this.frameBytes)
      throw new Error(`frame has ${frame.length} bytes, expected ${this.frameBytes}`);
    const stdin = this.proc.stdin!;
    // keep up to three frames buffered so the page can draw the next frame while ffmpeg reads this one
    if (!stdin.write(frame) && stdin.writableLength > 3 * this.frameBytes) {
      try {
        await Promise.race([
          once(stdin, 'drain'),
          this.exited.then(() => {
            throw encoderFailed(`ffmpeg exited early: ${this.stderr.trim()}`);
          }),
        ]);
      } catch (e) {
        // a killed ffmpeg surfaces as EPIPE on stdin (rejecting the drain wait) or as its exit: both are ffmpeg's
        if (e instanceof StageFault) throw e;
        throw encoderFailed(`ffmpeg failed: ${e instanceof Error ? e.message : String(e)} ${this.stderr}`);
      }
    }
  }

  /** Closes stdin and waits for ffmpeg to finish the file. */
  async finish(): Promise<void> {
    this.proc.stdin!.end();
    const code = await this.exited;
    if (code !== 0) throw encoderFailed(`ffmpeg exited with ${code}: ${this.stderr.trim().slice(0, 500)}`);
  }

  /** Ends the process at once; resolves when it is gone (so its files can be removed). */
  async kill(): Promise<void> {
    this.proc.stdin!.destroy();
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

/** ffmpeg failed: the job ends encoder_failed; its words (stderr, paths) are the detail, for the log. */
export function encoderFailed(detail: string): StageFault {
  return new StageFault(CODE.encoder_failed, detail.trim());
}
