// npm run compare: renders every example (the corpus in ../shared and our own examples/) through the real service
// (HTTP API, warm Chromium) on each GL backend, scores each frame against the reference runner's frame where
// ../shared/reference has one (content match), and scores egl against swiftshader (PSNR); prints a table.
//
//   npm run compare [-- --only homepage,title] [-- --out compare-out] [-- --gl both|egl|swiftshader|auto]
//                   [-- --times 0,0.75,1.5 | ref]
//
// `--times ref` draws each corpus source at the times its reference frames were drawn (reference/NAME@T.png) and
// prints, beside the content score, the PSNR against the reference (99: the same pixels).
//
// Side-by-side images: compare-out/BACKEND/NAME@T.png = reference | ours | mismatch map (red: unmatched content
// pixel); every frame drawn is kept as compare-out/BACKEND/NAME@T.ours.png.
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { PNG } from 'pngjs';
import { buildApp } from '../src/server/app.js';
import { defaultConfig, type Config } from '../src/config/settings.js';
import { ChromiumRenderer } from '../src/render/chromium-renderer.js';
import { contentScore, CONTENT_THRESHOLD, MATCH_RADIUS, MATCH_TOLERANCE, type Rgba } from './lib/score.js';
import { parseGlSetting, type GlSetting } from '../src/contract/hardware.js';
import { existsSync } from 'node:fs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.CMRENDER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    out: { type: 'string', default: 'compare-out' },
    times: { type: 'string', default: '0,0.75,1.5' },
    gl: { type: 'string', default: 'both' },
  },
});

/** The reference frames were drawn at 1080x1080 for square scenes and 1920x1080 for the rest (examples/README.md). */
const SQUARE = new Set(['plinken-svg', 'handdrawn']);
const refTimes = args.times === 'ref';
const TIMES = refTimes ? [] : args.times!.split(',').map(Number);
/** The times ../shared/reference has a frame of `name` at (`--times ref`). */
const timesOf = (name: string, own: boolean): number[] =>
  !refTimes
    ? TIMES
    : own
      ? []
      : readdirSync(join(shared, 'reference'))
          .filter((f) => f.startsWith(`${name}@`) && f.endsWith('.png'))
          .map((f) => Number(f.slice(name.length + 1, -4)))
          .sort((a, b) => a - b);

const sourcesIn = (dir: string, own: boolean) =>
  readdirSync(dir)
    .filter((f) => f.endsWith('.cm'))
    .map((f) => ({ name: basename(f, '.cm'), own, path: join(dir, f) }))
    .filter((e) => !args.only || args.only.split(',').includes(e.name))
    .sort((a, b) => a.name.localeCompare(b.name));
const sources = [...sourcesIn(join(shared, 'examples'), false), ...sourcesIn(join(repoRoot, 'examples'), true)];
const backends: GlSetting[] = args.gl === 'both' ? ['swiftshader', 'egl'] : [parseGlSetting(args.gl)];
/** egl against swiftshader below this is worth a look (issue: llvmpipe's frames stay within 45 dB of SwiftShader's) */
const PSNR_FLOOR = 45;
/** a frame's content matches the reference's at this score or better */
const SCORE_FLOOR = 0.995;

const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });

/** A service on one GL backend with every example image uploaded (the corpus's and ours, under /img/<name>). */
async function openService(gl: GlSetting) {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-compare-'));
  const config: Config = { ...defaultConfig(), dataDir, logLevel: 'warn', renderGl: gl };
  const renderer = new ChromiumRenderer({ chromiumPath: config.chromiumPath, ffmpegPath: config.ffmpegPath, gl, log });
  const app = await buildApp({ config, renderer, logger: log });
  await app.ready();
  const boundary = '----cmrendercompare';
  const parts: Buffer[] = [];
  for (const imgDir of [join(shared, 'examples', 'img'), join(repoRoot, 'examples', 'img')]) {
    if (!existsSync(imgDir)) continue;
    for (const f of readdirSync(imgDir)) {
      parts.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
        ),
      );
      parts.push(readFileSync(join(imgDir, f)), Buffer.from('\r\n'));
    }
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  const up = await app.inject({
    method: 'POST',
    url: '/v1/assets',
    payload: Buffer.concat(parts),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  });
  if (up.statusCode !== 200) throw new Error(`asset upload failed: ${up.statusCode} ${up.body}`);
  const assets: Record<string, string> = {};
  for (const [file, key] of Object.entries(up.json().assets as Record<string, string>)) assets[`/img/${file}`] = key;

  async function renderFrame(source: string, at: number, width: number, height: number): Promise<Buffer> {
    const r = await app.inject({
      method: 'POST',
      url: '/v1/frame',
      payload: { source, params: { at, width, height }, assets },
      headers: { 'content-type': 'application/json' },
    });
    if (r.statusCode !== 202) throw new Error(`POST /v1/frame answered ${r.statusCode}: ${r.body}`);
    const id = r.json().job_id as string;
    for (;;) {
      const j = await app.inject({ url: `/v1/jobs/${id}` });
      const job = j.json();
      if (job.status === 'ready') return (await app.inject({ url: job.url })).rawPayload;
      if (job.status === 'error') throw new Error(`${job.message}`);
      await new Promise((res) => setTimeout(res, 20));
    }
  }
  return {
    renderer: renderer.gl?.renderer ?? '?',
    backend: renderer.gl?.backend ?? gl,
    renderFrame,
    async close() {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const outDir = resolve(args.out!);
mkdirSync(outDir, { recursive: true });

function decode(buf: Buffer): Rgba {
  const png = PNG.sync.read(buf);
  return { width: png.width, height: png.height, data: png.data };
}

/** reference | ours | mismatch map, side by side. */
function sideBySide(ref: Rgba, ours: Rgba): Buffer {
  const w = ref.width,
    h = ref.height;
  const out = new PNG({ width: w * 3, height: h });
  const bg = [ref.data[0], ref.data[1], ref.data[2]];
  const content = (img: Rgba, i: number) =>
    [0, 1, 2].some((c) => Math.abs(img.data[i + c] - bg[c]) > CONTENT_THRESHOLD);
  const near = (img: Rgba, x: number, y: number, px: ArrayLike<number>) => {
    for (let dy = -MATCH_RADIUS; dy <= MATCH_RADIUS; dy++)
      for (let dx = -MATCH_RADIUS; dx <= MATCH_RADIUS; dx++) {
        const xx = x + dx,
          yy = y + dy;
        if (xx < 0 || yy < 0 || xx >= w || yy >= h) continue;
        const j = (yy * w + xx) * 4;
        if ([0, 1, 2].every((c) => Math.abs(img.data[j + c] - px[c]) <= MATCH_TOLERANCE)) return true;
      }
    return false;
  };
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 4;
      for (let c = 0; c < 4; c++) {
        out.data[(y * w * 3 + x) * 4 + c] = ref.data[i + c];
        out.data[(y * w * 3 + w + x) * 4 + c] = ours.data[i + c];
      }
      const o = (y * w * 3 + 2 * w + x) * 4;
      let colour = [24, 24, 24];
      const refC = content(ref, i),
        ourC = content(ours, i);
      if (refC || ourC) {
        const ok =
          (!refC || near(ours, x, y, [ref.data[i], ref.data[i + 1], ref.data[i + 2]])) &&
          (!ourC || near(ref, x, y, [ours.data[i], ours.data[i + 1], ours.data[i + 2]]));
        colour = ok ? [90, 90, 90] : [255, 40, 40];
      }
      out.data.set([...colour, 255], o);
    }
  return PNG.sync.write(out);
}

/** PSNR in dB of two RGBA pictures of one size over RGB (99 when identical). */
function psnr(a: Rgba, b: Rgba): number {
  let se = 0;
  let n = 0;
  for (let i = 0; i < a.data.length; i += 4)
    for (let c = 0; c < 3; c++) {
      const d = a.data[i + c] - b.data[i + c];
      se += d * d;
      n++;
    }
  return se === 0 ? 99 : 10 * Math.log10((255 * 255) / (se / n));
}

interface Row {
  frame: string;
  scores: Record<string, string>;
  ms: Record<string, number>;
  psnr: number | null;
  note: string;
}
const rows = new Map<string, Row>();
const drawn = new Map<string, Map<string, Rgba>>();
const renderers: string[] = [];
for (const gl of backends) {
  const svc = await openService(gl);
  renderers.push(`${gl}: ${svc.backend}, ${svc.renderer}`);
  mkdirSync(join(outDir, gl), { recursive: true });
  for (const src of sources) {
    const source = readFileSync(src.path, 'utf8');
    const [width, height] = SQUARE.has(src.name) ? [1080, 1080] : [1920, 1080];
    for (const at of timesOf(src.name, src.own)) {
      const label = `${src.own ? 'own/' : ''}${src.name}@${at.toFixed(src.own ? 2 : 1)}`;
      const file = label.replace('/', '-');
      const row = rows.get(label) ?? { frame: label, scores: {}, ms: {}, psnr: null, note: '' };
      rows.set(label, row);
      const refPath = join(shared, 'reference', `${src.name}@${at.toFixed(1)}.png`);
      const t0 = performance.now();
      try {
        const png = await svc.renderFrame(source, at, width, height);
        row.ms[gl] = Math.round(performance.now() - t0);
        const ours = decode(png);
        writeFileSync(join(outDir, gl, `${file}.ours.png`), png);
        if (!drawn.has(label)) drawn.set(label, new Map());
        drawn.get(label)!.set(gl, ours);
        if (!src.own && existsSync(refPath)) {
          const ref = decode(readFileSync(refPath));
          writeFileSync(join(outDir, gl, `${file}.png`), sideBySide(ref, ours));
          const s = contentScore(ours, ref);
          row.scores[gl] = `${s.score.toFixed(4)} ${psnr(ours, ref).toFixed(1)}dB`;
          if (s.score < SCORE_FLOOR) row.note += `${gl} below ${SCORE_FLOOR} `;
        } else row.scores[gl] = '-';
      } catch (err) {
        row.scores[gl] = 'error';
        row.ms[gl] = Math.round(performance.now() - t0);
        row.note += `${gl}: ${String((err as Error).message).slice(0, 100)} `;
      }
    }
  }
  await svc.close();
}

for (const [label, pics] of drawn) {
  const e = pics.get('egl');
  const s = pics.get('swiftshader');
  if (e && s) {
    const row = rows.get(label)!;
    row.psnr = psnr(e, s);
    if (row.psnr < PSNR_FLOOR) row.note += `egl vs swiftshader below ${PSNR_FLOOR} dB`;
  }
}

const pad = (s: string | number, n: number) => String(s).padEnd(n);
console.log(renderers.join('\n'));
console.log(
  `\n${pad('frame', 34)}${backends.map((b) => pad(`${b} score`, 18) + pad('ms', 7)).join('')}${pad('egl/ssh dB', 12)}note`,
);
for (const r of rows.values())
  console.log(
    `${pad(r.frame, 34)}${backends.map((b) => pad(r.scores[b] ?? '', 18) + pad(r.ms[b] ?? '', 7)).join('')}${pad(r.psnr === null ? '-' : r.psnr.toFixed(1), 12)}${r.note}`,
  );
const all = [...rows.values()];
for (const b of backends) {
  const scoreOf = (r: Row) => (r.scores[b] ? Number(r.scores[b].split(' ')[0]) : NaN);
  const scores = all.map(scoreOf).filter((n) => !Number.isNaN(n));
  const low = all.filter((r) => r.scores[b] === 'error' || scoreOf(r) < SCORE_FLOOR).length;
  console.log(
    `${b}: ${scores.length} frames scored against the reference, ${low} below ${SCORE_FLOOR} or failed, lowest ${Math.min(...scores).toFixed(4)}`,
  );
}
const psnrs = all.map((r) => r.psnr).filter((p): p is number => p !== null);
if (psnrs.length)
  console.log(
    `egl vs swiftshader: ${psnrs.length} frames, lowest ${Math.min(...psnrs).toFixed(1)} dB, ${psnrs.filter((p) => p < PSNR_FLOOR).length} below ${PSNR_FLOOR} dB`,
  );
console.log(`side-by-side images in ${outDir}`);
