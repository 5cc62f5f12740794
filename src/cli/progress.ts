// Progress of a long render on stderr: a bar redrawn in place on a terminal (frames done, total, time left), plain
// lines every tenth otherwise (logs and CI keep readable output, with no carriage returns).

export interface ProgressSink {
  write(s: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Progress {
  /** fraction 0..1 of the whole job; frames drawn so far and planned */
  update(fraction: number, frames?: { done: number; total: number }): void;
  /** clears the bar (a terminal) so the next line starts clean */
  end(): void;
}

const BAR = 24;
/** a terminal is redrawn at most this often: a fast render must not spend its time printing */
const REDRAW_MS = 100;

export function formatSeconds(s: number): string {
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s.toFixed(s < 10 ? 1 : 0)} s`;
  const m = Math.floor(s / 60);
  return `${m} min ${Math.round(s - m * 60)} s`;
}

export function createProgress(
  sink: ProgressSink,
  label: string,
  now: () => number = () => performance.now(),
): Progress {
  // the pace is measured from the first report on: starting Chromium and loading the page happen once, before it
  let first: { t: number; p: number } | null = null;
  let lastDraw = -Infinity;
  let lastTenth = -1;
  let drawn = false;
  const line = (fraction: number, frames?: { done: number; total: number }) => {
    const t = now();
    first ??= { t, p: fraction };
    // time left from the pace so far: unknown until two reports apart
    const rate = fraction > first.p ? (t - first.t) / 1000 / (fraction - first.p) : Number.NaN;
    const left = rate * (1 - fraction);
    const f = frames ? `${frames.done}/${frames.total} frames` : '';
    return { f, pct: `${Math.floor(fraction * 100)}%`, left: fraction >= 1 ? 'done' : `${formatSeconds(left)} left` };
  };
  return {
    update(fraction, frames) {
      const p = Math.min(1, Math.max(0, fraction));
      const { f, pct, left } = line(p, frames);
      if (sink.isTTY) {
        const t = now();
        if (p < 1 && t - lastDraw < REDRAW_MS) return;
        lastDraw = t;
        const full = Math.round(p * BAR);
        sink.write(`\r${label} [${'#'.repeat(full)}${'.'.repeat(BAR - full)}] ${pct.padStart(4)} ${f}  ${left}\x1b[K`);
        drawn = true;
      } else {
        const tenth = Math.floor(p * 10);
        if (tenth === lastTenth) return;
        lastTenth = tenth;
        sink.write(`${label}: ${pct}${f ? ` (${f})` : ''}, ${left}\n`);
      }
    },
    end() {
      if (sink.isTTY && drawn) sink.write('\r\x1b[K');
    },
  };
}
