// `cmrender render FILE -o OUT.(png|jpg|webp|mp4|webm|mov|gif)`: a local render through the same ChromiumRenderer as the service
// (warm Chromium page, frame pipeline, ffmpeg), without a server. The output kind follows the extension.
import { readFileSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import pino from 'pino';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { ChunkedVideos } from '../render/chunked-video.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
import { CLI_RENDER_SETTINGS } from '../config/settings.js';
import { ConfigError, readSettings } from '../config/setting.js';
import { checkParams, prepare, preparedOfPlan, type Plan } from '../render/prepare.js';
import { Aborted } from '../render/frame-sequence.js';
import { JobFailure, type RenderJob, type RenderParams } from '../render/renderer-port.js';
import { VIDEO_CODECS, videoExt, type FrameFormat, type VideoCodec } from '../contract/outputs.js';
import { parseAt } from './time.js';
import { createProgress, formatSeconds, type ProgressSink } from './progress.js';
import { numberFlag, parseFlags, UsageError } from './flags.js';
import { ARG_FLAGS, ArgsFileError, argsFromFlags, type ArgFlag } from './arg-flags.js';
import { RENDER_USAGE } from './usage.js';
import { renderRows } from './render-rows.js';

export interface CommandIo {
  out: (s: string) => void;
  err: (s: string) => void;
  /** where the progress bar goes (stderr) */
  progress: ProgressSink;
}

/** The output's kind, and the codec or still format its extension implies (--codec picks h265 or av1). */
const BY_EXT: Record<string, { kind: RenderJob['kind']; codec?: VideoCodec; format?: FrameFormat }> = {
  '.png': { kind: 'frame' },
  '.jpg': { kind: 'frame', format: 'jpeg' },
  '.jpeg': { kind: 'frame', format: 'jpeg' },
  '.webp': { kind: 'frame', format: 'webp' },
  '.mp4': { kind: 'video' },
  '.webm': { kind: 'video', codec: 'vp9' },
  '.mov': { kind: 'video', codec: 'prores' },
  '.gif': { kind: 'gif' },
};

const FLAGS = {
  '-o': 'string',
  '--output': 'string',
  '--at': 'string',
  '--duration': 'string',
  '--fps': 'number',
  '--width': 'number',
  '--height': 'number',
  '--asset': 'repeat',
  '--codec': 'string',
  '--quality': 'number',
  '--arg': 'repeat',
  '--arg-json': 'repeat',
  '--args': 'repeat',
  '--rows': 'string',
} as const;

export interface RenderRequest {
  file: string;
  job: RenderJob;
  /** the scene's argument flags in order, bound once the source is read (arg-flags.ts) */
  argFlags: ArgFlag[];
  /** --rows FILE: one render per row, -o holding `{name}` (render-rows.ts) */
  rows?: string;
}

/** Arguments → the job to render; a UsageError for anything a user typed wrong. */
export function parseRenderArgs(argv: readonly string[]): RenderRequest {
  const f = parseFlags(argv, FLAGS);
  if (f.positional.length === 0) throw new UsageError('`render` requires a source file argument');
  if (f.positional.length > 1) throw new UsageError(`unexpected extra argument: ${f.positional[1]}`);
  const out = f.values.get('-o') ?? f.values.get('--output');
  if (!out) throw new UsageError('`render` requires an output file: -o OUT.png, OUT.mp4 or OUT.gif');
  const ext = extname(out).toLowerCase();
  const byExt = BY_EXT[ext];
  if (!byExt)
    throw new UsageError(
      `cannot render to '${basename(out)}': unknown output extension '${ext || '(none)'}'; use .png, .jpg or .webp (a frame), .mp4, .webm or .mov (a video) or .gif`,
    );
  const kind = byExt.kind;
  const params: RenderParams = {};
  if (byExt.format) params.format = byExt.format;
  const codec = f.values.get('--codec') ?? byExt.codec;
  if (codec !== undefined) {
    if (kind !== 'video') throw new UsageError('--codec is for .mp4, .webm and .mov outputs');
    if (!(VIDEO_CODECS as readonly string[]).includes(codec))
      throw new UsageError(`unknown codec '${codec}'; use ${VIDEO_CODECS.join(', ')}`);
    if (videoExt(codec as VideoCodec) !== ext.slice(1))
      throw new UsageError(`codec ${codec} is written as .${videoExt(codec as VideoCodec)}, not ${ext}`);
    if (codec !== 'h264') params.codec = codec as VideoCodec;
  }
  const quality = numberFlag(f, '--quality');
  if (quality !== undefined) {
    if (kind === 'gif' || (kind === 'frame' && !byExt.format))
      throw new UsageError('--quality is for videos and .jpg or .webp frames');
    params.quality = quality;
  }
  const time = (name: '--at' | '--duration') => {
    const v = f.values.get(name);
    if (v === undefined) return undefined;
    const s = parseAt(v);
    if (s === null) throw new UsageError(`could not parse \`${name} ${v}\` as a duration (e.g. 1.5, 1.5s, 500ms)`);
    return s;
  };
  const at = time('--at');
  const duration = time('--duration');
  const fps = numberFlag(f, '--fps');
  if (kind === 'frame') {
    if (duration !== undefined || fps !== undefined)
      throw new UsageError('--duration and --fps are for video and .gif outputs');
    if (at !== undefined) params.at = at;
  } else {
    if (at !== undefined) throw new UsageError('--at is for frame outputs (a clip starts at 0)');
    if (duration !== undefined) params.duration = duration;
    if (fps !== undefined) params.fps = fps;
  }
  const width = numberFlag(f, '--width');
  const height = numberFlag(f, '--height');
  if (width !== undefined) params.width = width;
  if (height !== undefined) params.height = height;
  const assets: Record<string, string> = {};
  for (const a of f.repeated.get('--asset') ?? []) {
    const eq = a.indexOf('=');
    if (eq <= 0 || eq === a.length - 1)
      throw new UsageError(`--asset wants IN_SOURCE_PATH=FILE (e.g. /img/x.jpg=./x.jpg), got '${a}'`);
    assets[a.slice(0, eq)] = resolve(a.slice(eq + 1));
  }
  const file = f.positional[0]!;
  const rows = f.values.get('--rows');
  if (rows !== undefined && !out.includes('{name}'))
    throw new UsageError("with --rows, -o names each row's file with {name}: -o 'out/{name}.mp4'");
  if (rows === undefined && out.includes('{name}'))
    throw new UsageError('-o holds {name}: that is for --rows FILE.csv|FILE.jsonl');
  return {
    file,
    job: { id: 'cli', kind, source: '', params, assets, outPath: resolve(out) },
    argFlags: argFlagsInOrder(argv),
    ...(rows !== undefined ? { rows } : {}),
  };
}

/** The argument flags in the order typed (parseFlags keeps each flag's own list; the order across them matters). */
function argFlagsInOrder(argv: readonly string[]): ArgFlag[] {
  const out: ArgFlag[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const flag = ARG_FLAGS.find((f) => a === f || a.startsWith(`${f}=`));
    if (!flag) continue;
    const v = a === flag ? argv[++i] : a.slice(flag.length + 1);
    if (v !== undefined) out.push({ flag, value: v });
  }
  return out;
}

/** `file:line:col CODE message` for each error of a failure (the compiler's, or ASS001 for an image, with the
 * `--asset` flag that gives the CLI the image). */
export function failureLines(file: string, e: JobFailure): string[] {
  const diags = (e.diagnostics ?? []).filter((d) => d.severity === undefined || d.severity === 'error');
  if (diags.length === 0) return [`${file}: ${e.code ? `${e.code} ` : ''}${e.message}`];
  return diags.flatMap((d) => {
    const line = `${file}${d.line !== undefined ? `:${d.line}:${d.column ?? 1}` : ''} ${d.code} ${d.message}`;
    // the service's words ("an uploaded asset of this job") say nothing of how the CLI is given an image
    const missing = d.code === 'ASS001' ? /^image "([^"]+)" is not an uploaded asset/.exec(d.message) : null;
    return missing ? [line, `  help: give the image's file with --asset ${missing[1]}=FILE`] : [line];
  });
}

export async function renderCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  let req: RenderRequest;
  try {
    req = parseRenderArgs(argv);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\nusage: ${RENDER_USAGE}`);
      return 2;
    }
    throw e;
  }
  let settings;
  try {
    settings = readSettings(CLI_RENDER_SETTINGS);
  } catch (e) {
    if (!(e instanceof ConfigError)) throw e;
    io.err(`error: ${e.message}`);
    return 2;
  }
  const { file, job } = req;
  try {
    job.source = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'ENOENT' ? `error: file not found: ${file}` : `error: could not read ${file}: ${(e as Error).message}`,
    );
    return 66;
  }
  try {
    const args = argsFromFlags(req.argFlags, job.source);
    if (args) job.args = args;
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\nusage: ${RENDER_USAGE}`);
      return 2;
    }
    if (!(e instanceof ArgsFileError)) throw e;
    io.err(`error: ${e.message}`);
    return 66;
  }
  for (const [p, f] of Object.entries(job.assets)) {
    if (!statSync(f, { throwIfNoEntry: false })?.isFile()) {
      io.err(`error: --asset ${p}=${f}: file not found`);
      return 66;
    }
  }
  // compile, check the params and plan before Chromium starts: a typo answers at once
  let plan: Plan;
  try {
    checkParams(job);
  } catch (e) {
    if (!(e instanceof JobFailure)) throw e;
    io.err(`error: ${e.message}`);
    return 2;
  }
  if (req.rows !== undefined)
    return renderRows({ file, job, rowsPath: req.rows, outPattern: job.outPath, settings, usage: RENDER_USAGE }, io);
  try {
    plan = prepare(job);
  } catch (e) {
    if (!(e instanceof JobFailure)) throw e;
    for (const l of failureLines(file, e)) io.err(l);
    return 1;
  }

  // a long video is cut in chunks and joined above the renderer as the service's are, so its bytes are the service's;
  // its frame count is known already (prepare above)
  const renderer = new ChunkedVideos(
    new ChromiumRenderer({
      chromiumPath: settings.chromiumPath,
      gl: settings.renderGl,
      ffmpegPath: settings.ffmpegPath,
      log: pino({ level: 'silent' }),
    }),
    segmentJoiner(settings.ffmpegPath),
  );
  // a first line at once (the source compiled, the plan made), before Chromium's launch takes its seconds
  const total = plan.frames;
  io.err(`rendering ${file} → ${job.outPath}: ${total} frame${total === 1 ? '' : 's'}; starting the renderer…`);
  const ctl = new AbortController();
  // Ctrl-C: stop the render so its temporary files go, then exit non-zero
  const onSigint = () => ctl.abort();
  process.once('SIGINT', onSigint);
  const label = basename(job.outPath);
  const progress = createProgress(io.progress, label);
  const t0 = performance.now();
  try {
    await renderer.start();
    const out = await renderer.render(
      { ...job, prepared: preparedOfPlan(job, plan) },
      {
        signal: ctl.signal,
        onProgress:
          job.kind === 'frame'
            ? undefined
            : (p, frames) => progress.update(p, frames ?? { done: Math.round(p * total), total }),
      },
    );
    progress.end();
    const bytes = statSync(job.outPath).size;
    io.out(
      `wrote ${job.outPath} (${out.width}x${out.height}${job.kind === 'frame' ? '' : `, ${out.frames} frames`}, ${bytes} bytes) in ${formatSeconds((performance.now() - t0) / 1000)}`,
    );
    return 0;
  } catch (e) {
    progress.end();
    if (e instanceof Aborted) {
      io.err('error: interrupted; nothing written');
      return 130;
    }
    if (e instanceof JobFailure) {
      for (const l of failureLines(file, e)) io.err(l);
      return 1;
    }
    io.err(`error: render failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await renderer.close();
  }
}
