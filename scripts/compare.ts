// npm run compare: renders every renderable example through the real service (HTTP API, warm Chromium), scores each
// frame against the reference runner's frame in ../shared/reference, writes side-by-side images and prints a table.
//
//   npm run compare [-- --only homepage,title] [-- --out compare-out]
//
// Side-by-side images: compare-out/NAME@T.png = reference | ours | mismatch map (red: unmatched content pixel).
import { mkdtempSync, readFileSync, readdirSync, writeFileSync, mkdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve, dirname, basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pino from 'pino';
import { PNG } from 'pngjs';
import { buildApp } from '../src/server/app.js';
import { defaultConfig } from '../src/server/config.js';
import { ChromiumRenderer } from '../src/render/renderer.js';
import { contentScore, CONTENT_THRESHOLD, MATCH_RADIUS, MATCH_TOLERANCE, type Rgba } from './lib/score.js';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const shared = process.env.CMRENDER_SHARED_DIR ?? resolve(repoRoot, '..', 'shared');
const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    out: { type: 'string', default: 'compare-out' },
    times: { type: 'string', default: '0,1.5' },
  },
});

/** The reference frames were drawn at 1080x1080 for square scenes and 1920x1080 for the rest (examples/README.md). */
const SQUARE = new Set(['plinken-svg', 'handdrawn']);
const TIMES = args.times!.split(',').map(Number);

const names = readdirSync(join(shared, 'examples'))
  .filter((f) => f.endsWith('.cm'))
  .map((f) => basename(f, '.cm'))
  .filter((n) => !args.only || args.only.split(',').includes(n))
  .sort();

const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });
const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-compare-'));
const config = { ...defaultConfig(), dataDir, logLevel: 'warn' };
const renderer = new ChromiumRenderer({ chromiumPath: config.chromiumPath, ffmpegPath: config.ffmpegPath, log });
const app = await buildApp({ config, renderer, logger: log });
await app.ready();

// Upload the example images once; every source reaches them under /img/<name>.
const imgDir = join(shared, 'examples', 'img');
const boundary = '----cmrendercompare';
const parts: Buffer[] = [];
for (const f of readdirSync(imgDir)) {
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${f}"\r\nContent-Type: application/octet-stream\r\n\r\n`,
    ),
  );
  parts.push(readFileSync(join(imgDir, f)), Buffer.from('\r\n'));
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

const rows: { frame: string; score: string; content: number; ms: number; note: string }[] = [];
for (const name of names) {
  const source = readFileSync(join(shared, 'examples', `${name}.cm`), 'utf8');
  const [width, height] = SQUARE.has(name) ? [1080, 1080] : [1920, 1080];
  for (const at of TIMES) {
    const label = `${name}@${at.toFixed(1)}`;
    const refPath = join(shared, 'reference', `${label}.png`);
    const t0 = performance.now();
    try {
      const png = await renderFrame(source, at, width, height);
      const ms = Math.round(performance.now() - t0);
      const ours = decode(png);
      const ref = decode(readFileSync(refPath));
      writeFileSync(join(outDir, `${label}.ours.png`), png);
      writeFileSync(join(outDir, `${label}.png`), sideBySide(ref, ours));
      const s = contentScore(ours, ref);
      rows.push({
        frame: label,
        score: s.score.toFixed(3),
        content: s.content,
        ms,
        note: s.score >= 0.9 ? '' : 'below 0.90',
      });
    } catch (err) {
      rows.push({
        frame: label,
        score: 'error',
        content: 0,
        ms: Math.round(performance.now() - t0),
        note: String((err as Error).message).slice(0, 120),
      });
    }
  }
}

await app.close();
await rm(dataDir, { recursive: true, force: true });

const pad = (s: string | number, n: number) => String(s).padEnd(n);
console.log(`${pad('frame', 34)}${pad('score', 8)}${pad('content px', 12)}${pad('ms', 8)}note`);
for (const r of rows) console.log(`${pad(r.frame, 34)}${pad(r.score, 8)}${pad(r.content, 12)}${pad(r.ms, 8)}${r.note}`);
const scores = rows.map((r) => Number(r.score)).filter((n) => !Number.isNaN(n));
const below = rows.filter((r) => r.score === 'error' || Number(r.score) < 0.9).length;
console.log(
  `\n${rows.length} frames, ${below} below 0.90 or failed, mean score ${(scores.reduce((a, b) => a + b, 0) / Math.max(1, scores.length)).toFixed(3)}; side-by-side images in ${outDir}`,
);
process.exitCode = 0;
