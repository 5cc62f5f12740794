// npx tsx bench/glyphs.ts: what text costs the drawing page (issue 37). Draws, in the real page (headless Chromium,
// RENDER_GL's backend), a page of ordinary text (4,000 characters of text.glyph lines in one frame) and round 1's
// glyph bomb (one 62,000-character text.glyph string), and prints for each the draw time (draw(value) + pixels(), the
// first draw of a fresh job: every outline built) and Chromium's memory (the summed RSS of the browser's processes:
// before the draw, and the highest seen every 100 ms while drawing). The values are evaluated here in Node without the
// language's drawing limits, so a viewer build from before the change can be measured on the same frames.
//
//   npx tsx bench/glyphs.ts [--viewer DIR]... [--only page,bomb] [--chars 4000] [--timeout 120] [--shot FILE.png]
//
// --viewer DIR   a built viewer (dist/viewer-like directory); repeatable; default: the current source, built here.
//                Before/after: build d7952b0's viewer (git archive d7952b0 | tar -x -C /tmp/base; cd /tmp/base;
//                npx tsx scripts/build-viewer.ts) and pass both --viewer /tmp/base/dist/viewer --viewer dist/viewer.
// --timeout S    give up on one draw after S seconds (reported as "> S s"; the page is then closed).
// --shot FILE    write the current build's frame of the text page as a PNG (to look at it).
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Evaluator } from '../src/lang/evaluator.js';
import { parse } from '../src/lang/parser.js';
import { SourceMap } from '../src/lang/diagnostics.js';
import { launchForGl } from '../src/render/chromium.js';
import { parseGlSetting } from '../src/contract/hardware.js';
import { buildViewer } from '../scripts/build-viewer.js';
import { openViewerFrom, writePng } from '../test/viewer/helper.js';
import { longTextScene, glyphBombScene } from '../test/render/compat-scenes.js';

const { values: args } = parseArgs({
  options: {
    viewer: { type: 'string', multiple: true, default: [] },
    only: { type: 'string', default: 'page,bomb' },
    chars: { type: 'string', default: '4000' },
    timeout: { type: 'string', default: '120' },
    shot: { type: 'string' },
  },
});
const TIMEOUT_MS = Number(args.timeout) * 1000;

/** The value a source draws at t = 0, evaluated without the drawing limits (compile() would refuse the bomb). */
function valueOf(source: string): { runner: string; json: string } {
  const parsed = parse(source);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ev = new Evaluator(new SourceMap(source), 0).run(parsed.program);
  const scene = ev.bindings.find((b) => b.decl.d === 'callable' && b.decl.kind === 'scene')!;
  const runner = parsed.program.runner?.text ?? '0.0.13';
  return { runner, json: JSON.stringify(scene.value) };
}

/** The processes descended from this one (Chromium's browser, renderer and GPU processes), found once per page. */
function chromiumPids(): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // the process ended while we read
    }
  }
  const out: number[] = [];
  for (const pid of parent.keys())
    for (let p: number | undefined = parent.get(pid); p !== undefined && p > 1; p = parent.get(p))
      if (p === process.pid) {
        out.push(pid);
        break;
      }
  return out;
}

/** Summed RSS (MB) of those processes (statm's second field, in pages). */
function rssMb(pids: number[]): number {
  let total = 0;
  for (const pid of pids) {
    try {
      total += (Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]) * 4096) / 1e6;
    } catch {
      // ended
    }
  }
  return total;
}

const cases = [
  { name: 'page', label: `text page: ${args.chars} characters in 50 lines`, source: longTextScene(Number(args.chars)) },
  { name: 'bomb', label: 'glyph bomb: one 62,000-character string', source: glyphBombScene(62_000) },
].filter((c) => args.only!.split(',').includes(c.name));

let dirs = args.viewer!.map((d) => resolve(d));
if (dirs.length === 0) {
  const dir = mkdtempSync(join(tmpdir(), 'cm-glyph-bench-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  dirs = [await buildViewer(dir)];
}

const { browser, gl } = await launchForGl(parseGlSetting(process.env.RENDER_GL));
console.log(`GL: ${gl.backend} (${gl.renderer})`);
for (const c of cases) {
  const { runner, json } = valueOf(c.source);
  for (const dir of dirs) {
    const page = await openViewerFrom(browser, dir, 1920, 1080);
    await page.evaluate((o) => (window as any).cmViewer.load(o), { width: 1920, height: 1080, runner });
    const pids = chromiumPids();
    const before = rssMb(pids);
    let peak = before;
    const poll = setInterval(() => (peak = Math.max(peak, rssMb(pids))), 100);
    const t0 = performance.now();
    const shot = Boolean(args.shot) && c.name === 'page' && dir === dirs[dirs.length - 1];
    const draw = page.evaluate(
      async ([j, keep]) => {
        const v = (window as any).cmViewer;
        const d = await v.draw(JSON.parse(j), j);
        if (!d.ok) return { error: `${d.error.code}: ${d.error.message}` };
        const p = v.pixels() as Uint8Array; // waits for the GL to finish the frame
        return { pixels: keep ? Array.from(p) : [] };
      },
      [json, shot] as const,
    );
    const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), TIMEOUT_MS).unref());
    const r = await Promise.race([draw.catch((e: Error) => ({ error: e.message.split('\n')[0] })), timeout]);
    const ms = performance.now() - t0;
    clearInterval(poll);
    const time =
      r === 'timeout'
        ? `> ${TIMEOUT_MS / 1000} s`
        : 'error' in r
          ? `failed (${r.error})`
          : `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `${c.label} | viewer ${dir} | draw ${time} | Chromium RSS ${before.toFixed(0)} MB before, peak ${peak.toFixed(0)} MB (+${(peak - before).toFixed(0)} MB)`,
    );
    if (shot && r !== 'timeout' && !('error' in r))
      writePng({ width: 1920, height: 1080, data: Uint8Array.from(r.pixels) }, args.shot!);
    await page.close().catch(() => {});
  }
}
await browser.close();
