// `cmrender render FILE --rows rows.csv|rows.jsonl -o 'out/{name}.mp4'`: one local render per row (rows-file.ts), with
// one warm renderer for them all. Every row is read, bound to the scene and planned before Chromium starts, so a bad
// row stops the command (exit 2, naming its row and column) before anything renders; then each row renders in turn,
// a line per row as it is written, and a summary (rows written, failed, rows per minute). A row that fails to render
// is reported and the others still render; the exit status is then 1.
import { mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';
import { ChromiumRenderer } from '../render/chromium-renderer.js';
import { ChunkedVideos } from '../render/chunked-video.js';
import { segmentJoiner } from '../render/ffmpeg/join.js';
import { prepare, preparedOfPlan } from '../render/prepare.js';
import { Aborted } from '../render/frame-sequence.js';
import { JobFailure, type RenderJob } from '../render/renderer-port.js';
import { formatSeconds } from './progress.js';
import { readRows, RowError, type Row } from './rows-file.js';
import { ArgsFileError } from './arg-flags.js';
import { UsageError } from './flags.js';
/** Where the lines go (render-command.ts's CommandIo has these two). */
interface RowsIo {
  out: (s: string) => void;
  err: (s: string) => void;
}

export interface RenderRowsOptions {
  file: string;
  /** the job every row starts from: its source, params, assets and the --arg flags' args */
  job: RenderJob;
  rowsPath: string;
  /** -o as typed, resolved, holding `{name}` */
  outPattern: string;
  settings: {
    chromiumPath: string;
    renderGl: ConstructorParameters<typeof ChromiumRenderer>[0]['gl'];
    ffmpegPath: string;
  };
  usage: string;
}

export async function renderRows(o: RenderRowsOptions, io: RowsIo): Promise<number> {
  let rows: Row[];
  try {
    rows = readRows(o.rowsPath, o.job.source);
  } catch (e) {
    if (e instanceof RowError) {
      io.err(`error: ${e.message}`);
      return 2;
    }
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\nusage: ${o.usage}`);
      return 2;
    }
    if (e instanceof ArgsFileError) {
      io.err(`error: ${e.message}`);
      return 66;
    }
    throw e;
  }
  // every row planned before the renderer starts: a row whose scene fails to evaluate stops here too
  const jobs: { row: Row; job: RenderJob }[] = [];
  for (const row of rows) {
    const job: RenderJob = {
      ...o.job,
      id: `cli-${row.index}`,
      args: { ...(o.job.args ?? {}), ...row.args },
      outPath: o.outPattern.replaceAll('{name}', row.name),
    };
    try {
      jobs.push({ row, job: { ...job, prepared: preparedOfPlan(job, prepare(job)) } });
    } catch (e) {
      if (!(e instanceof JobFailure)) throw e;
      io.err(`error: ${o.rowsPath}: row ${row.index} (line ${row.line}): ${e.message}`);
      return 1;
    }
  }
  const renderer = new ChunkedVideos(
    new ChromiumRenderer({
      chromiumPath: o.settings.chromiumPath,
      gl: o.settings.renderGl,
      ffmpegPath: o.settings.ffmpegPath,
      log: pino({ level: 'silent' }),
    }),
    segmentJoiner(o.settings.ffmpegPath),
  );
  io.err(`rendering ${o.file}: ${jobs.length} rows from ${o.rowsPath}; starting the renderer…`);
  const ctl = new AbortController();
  const onSigint = () => ctl.abort();
  process.once('SIGINT', onSigint);
  const t0 = performance.now();
  let failed = 0;
  try {
    await renderer.start();
    for (const [i, { row, job }] of jobs.entries()) {
      const t = performance.now();
      const at = `[${i + 1}/${jobs.length}]`;
      try {
        mkdirSync(dirname(job.outPath), { recursive: true });
        const out = await renderer.render(job, {
          signal: ctl.signal,
        });
        const bytes = statSync(job.outPath).size;
        io.out(
          `${at} ${row.name}: wrote ${job.outPath} (${out.width}x${out.height}${job.kind === 'frame' ? '' : `, ${out.frames} frames`}, ${bytes} bytes) in ${formatSeconds((performance.now() - t) / 1000)}`,
        );
      } catch (e) {
        if (e instanceof Aborted) throw e;
        failed++;
        const why = e instanceof JobFailure ? `${e.code ? `${e.code} ` : ''}${e.message}` : String(e);
        io.err(`${at} ${row.name}: failed: ${why}`);
      }
    }
  } catch (e) {
    if (e instanceof Aborted) {
      io.err('error: interrupted');
      return 130;
    }
    io.err(`error: render failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    process.removeListener('SIGINT', onSigint);
    await renderer.close();
  }
  const s = (performance.now() - t0) / 1000;
  const done = jobs.length - failed;
  io.out(
    `${done} of ${jobs.length} rows written${failed ? `, ${failed} failed` : ''} in ${formatSeconds(s)} (${((done / s) * 60).toFixed(1)} rows per minute)`,
  );
  return failed ? 1 : 0;
}
