// npm run bench: median POST-to-ready time of frame and 2 s 30 fps video jobs at 1920x1080 on a warm service (real
// Chromium, real ffmpeg, HTTP over loopback): docs-api-quick (2D), homepage (extruded glyph) and lava-lamp
// (metaballs), each beside the reference runner's time on this kind of machine and our target; then, per job,
// where the time went (stage-times.ts: sums over frames of the last run, in ms, and per frame) and the time per
// frame of homepage by resolution. Also a 2 s, 15 fps, 480-wide GIF of homepage and a mesh of the plinken SVG (our
// own examples stand in for both when ../shared is absent: glyphs-3d.cm and svg-mark.cm).
// BENCH_RUNS sets the runs of the light cases (default 7); the heavy ones take at most 3. BENCH_ONLY=<substring or =name>[,...]
// runs only the cases whose name contains it. The service reads the environment's configuration like `npm start`
// (METRICS=off, RATE_LIMIT_POSTS, ...), so a setting's cost is measured by running the bench with and without it. `--gl=both` (the default; or BENCH_GL) runs every case on SwiftShader
// and on egl side by side, in turn run by run; `--gl=egl` or `--gl=swiftshader` one of them. `--against DIR` runs this
// tree's build against DIR's (a built copy of the project, e.g. main before a change) instead, both as child
// processes, run by run in turn, with ratios, the stage times of each and the throughput rows
// (bench/lib/service-against.ts; BENCH_TPUT_FRAMES, BENCH_TPUT_VIDEOS: their job counts, default 100 and 20).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { examplesDir, hasCorpus, ownExamplesDir } from '../test/helpers/shared.js';
import pino from 'pino';
import { buildApp } from '../src/server/app.js';
import { loadConfig } from '../src/config/settings.js';
import { ChromiumRenderer } from '../src/render/chromium-renderer.js';
import { RendererByKind } from '../src/render/by-kind.js';
import { ExportRenderer } from '../src/export/export-renderer.js';
import { defaultChromiumPath } from '../src/render/chromium.js';
import { STAGES } from '../src/render/stage-times.js';
import { runAgainst } from './lib/service-against.js';
import type { Renderer, RenderTimings } from '../src/render/renderer-port.js';
import { parseGlSetting, type GlSetting } from '../src/contract/hardware.js';
import { VIDEO_CODECS, type VideoCodec } from '../src/contract/outputs.js';

const read = (name: string) => readFileSync(join(examplesDir, `${name}.cm`), 'utf8');
const source = read('docs-api-quick');
const homepage = read('homepage');
const lava = read('lava-lamp');
const own = (name: string) => readFileSync(join(ownExamplesDir, `${name}.cm`), 'utf8');
const svgIn = (text: string) => /<svg[\s>][\s\S]*?<\/svg>/.exec(text)![0];
const gifScene = hasCorpus ? homepage : own('glyphs-3d');
const plinken = svgIn(hasCorpus ? read('plinken-svg') : own('svg-mark'));
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

/** --gl both (default) | egl | swiftshader | auto, or BENCH_GL: each backend gets its own warm service, run in turn. */
const glArg = process.argv.find((a) => a.startsWith('--gl='))?.slice(5) ?? process.env.BENCH_GL ?? 'both';
const glSettings: GlSetting[] = glArg === 'both' ? ['swiftshader', 'egl'] : [parseGlSetting(glArg)];
const log = pino({ level: process.env.LOG_LEVEL ?? 'warn' });

interface Service {
  gl: GlSetting;
  label: string;
  base: string;
  /** the timings of the service's last job, for the breakdown */
  lastTimings: RenderTimings | null;
  /** the output URL of the service's last job (its bytes for the codec table) */
  lastUrl: string | null;
  close(): Promise<void>;
}

async function openService(gl: GlSetting): Promise<Service> {
  const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-bench-'));
  const chromium = new ChromiumRenderer({ chromiumPath: defaultChromiumPath(), log, gl });
  const exporter = new ExportRenderer({ log });
  const byKind = new RendererByKind({
    frame: chromium,
    video: chromium,
    gif: chromium,
    mesh: exporter,
    vectorize: exporter,
  });
  const renderer: Renderer = {
    start: () => byKind.start(),
    close: () => byKind.close(),
    render: async (j, h) => {
      const o = await byKind.render(j, h);
      svc.lastTimings = o.timings;
      return o;
    },
  };
  // the environment's settings (METRICS=off, RATE_LIMIT_POSTS, ...) apply, so their cost can be measured
  // every timed job renders: the render cache would answer the repeats of a case in milliseconds
  const app = await buildApp({
    config: { ...loadConfig(), dataDir, logLevel: 'warn', renderCache: false },
    renderer,
    logger: log,
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  const svc: Service = {
    gl,
    label: chromium.gl ? `${chromium.gl.backend} (${chromium.gl.renderer})` : gl,
    base: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`,
    lastTimings: null,
    lastUrl: null,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return svc;
}

async function job(svc: Service, path: string, body: unknown): Promise<number> {
  const base = svc.base;
  const t0 = performance.now();
  const r = await fetch(base + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (r.status !== 202) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  const { job_id } = (await r.json()) as { job_id: string };
  for (;;) {
    const j = (await (await fetch(`${base}/v1/jobs/${job_id}`)).json()) as {
      status: string;
      message?: string;
      url?: string;
    };
    if (j.status === 'ready') {
      svc.lastUrl = j.url ?? null;
      return performance.now() - t0;
    }
    if (j.status === 'error') throw new Error(`${path}: ${j.message}`);
    await new Promise((res) => setTimeout(res, 5));
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

interface Case {
  name: string;
  path: string;
  body: {
    source: string;
    params: {
      width?: number;
      height?: number;
      duration?: number;
      fps?: number;
      at?: number;
      depth?: number;
      size?: number;
      codec?: VideoCodec;
    };
  };
  reference?: number;
  target?: number;
  heavy?: true;
}
const allCases: Case[] = [
  {
    name: 'frame 1920x1080',
    path: '/v1/frame',
    body: { source, params: { width: 1920, height: 1080 } },
    reference: 1.0,
    target: 0.25,
  },
  {
    name: 'video 2 s 30 fps 1920x1080',
    path: '/v1/render',
    body: { source, params: { width: 1920, height: 1080, duration: 2, fps: 30 } },
    reference: 10.3,
    target: 1.0,
  },
  // each codec at 1080p, 2 s, default quality: its time and its bytes (the codec table)
  ...VIDEO_CODECS.map((codec): Case => ({
    name: `codec ${codec} video 2 s 30 fps 1920x1080`,
    path: '/v1/render',
    body: { source, params: { width: 1920, height: 1080, duration: 2, fps: 30, codec } },
  })),
  {
    name: 'homepage frame 1920x1080',
    path: '/v1/frame',
    body: { source: homepage, params: { width: 1920, height: 1080, at: 1.5 } },
    reference: 1.5,
    target: 0.4,
  },
  {
    name: 'homepage video 2 s 30 fps',
    path: '/v1/render',
    body: { source: homepage, params: { width: 1920, height: 1080, duration: 2, fps: 30 } },
    reference: 17.5,
    target: 3.0,
    heavy: true,
  },
  {
    name: `${hasCorpus ? 'homepage' : 'glyphs-3d'} GIF 2 s 15 fps 480 wide`,
    path: '/v1/gif',
    body: { source: gifScene, params: { width: 480, duration: 2, fps: 15 } },
    reference: NaN,
    target: 2.0,
  },
  {
    name: `mesh of the ${hasCorpus ? 'plinken' : 'svg-mark'} SVG`,
    path: '/v1/mesh',
    body: { source: plinken, params: { depth: 20, size: 100 } },
    reference: NaN,
    target: 0.3,
  },
  {
    name: 'lava-lamp frame 1920x1080',
    path: '/v1/frame',
    body: { source: lava, params: { width: 1920, height: 1080, at: 1.5 } },
    reference: 8.0,
    target: 1.5,
    heavy: true,
  },
  {
    name: 'homepage video 10 s 30 fps',
    path: '/v1/render',
    body: { source: homepage, params: { width: 1920, height: 1080, duration: 10, fps: 30 } },
    heavy: true,
  },
  {
    name: 'homepage frame 3840x2160',
    path: '/v1/frame',
    body: { source: homepage, params: { width: 3840, height: 2160, at: 1.5 } },
    heavy: true,
  },
  {
    name: 'homepage video 2 s 30 fps 1280x720',
    path: '/v1/render',
    body: { source: homepage, params: { width: 1280, height: 720, duration: 2, fps: 30 } },
    heavy: true,
  },
  {
    name: 'homepage video 2 s 30 fps 640x360',
    path: '/v1/render',
    body: { source: homepage, params: { width: 640, height: 360, duration: 2, fps: 30 } },
    heavy: true,
  },
];
const only = process.env.BENCH_ONLY?.split(',').filter(Boolean) ?? [];
// "=name" picks exactly that case, anything else every case whose name holds it
const cases = allCases.filter(
  (c) => !only.length || only.some((o) => (o.startsWith('=') ? c.name === o.slice(1) : c.name.includes(o))),
);

const againstArg = process.argv.indexOf('--against');
if (againstArg > 0) {
  // this tree's build against another's, interleaved in one sitting (bench/lib/service-against.ts); the issue-54
  // jobs by default (BENCH_ONLY picks others), and the throughput rows: one scene, each job another argument (the
  // small square's colour), so no two are the same request
  const colour = (i: number) => `#${(0x100000 + i * 0x10101).toString(16).slice(-6)}`;
  const withColour = (i: number) => source.replace('#ff3399', colour(i));
  const issueCases = [
    '=frame 1920x1080',
    '=homepage frame 1920x1080',
    '=video 2 s 30 fps 1920x1080',
    '=homepage video 2 s 30 fps',
  ];
  const picked = only.length ? cases : allCases.filter((c) => issueCases.includes(`=${c.name}`));
  const tputFrames = Number(process.env.BENCH_TPUT_FRAMES ?? 100);
  const tputVideos = Number(process.env.BENCH_TPUT_VIDEOS ?? 20);
  await runAgainst({
    against: process.argv[againstArg + 1]!,
    gl: glArg === 'both' ? 'egl' : glArg,
    runs: RUNS,
    cases: picked,
    throughput: [
      {
        name: `${tputFrames} frames 1280x720 (docs-api-quick, each its own colour)`,
        path: '/v1/frame',
        bodies: Array.from({ length: tputFrames }, (_, i) => ({
          source: withColour(i),
          params: { width: 1280, height: 720 },
        })),
      },
      {
        name: `${tputVideos} videos 3 s 30 fps 1280x720 (docs-api-quick, each its own colour)`,
        path: '/v1/render',
        bodies: Array.from({ length: tputVideos }, (_, i) => ({
          source: withColour(i),
          params: { width: 1280, height: 720, duration: 3, fps: 30 },
        })),
      },
    ].filter((t) => t.bodies.length > 0),
  });
  process.exit(0);
}

const services: Service[] = [];
for (const gl of glSettings) services.push(await openService(gl));
try {
  for (const c of cases) for (const svc of services) await job(svc, c.path, c.body); // warm-up
  const rows: string[] = [];
  const stageRows: string[] = [];
  const codecRows: string[] = [];
  for (const c of cases) {
    const times = new Map<Service, number[]>(services.map((svc) => [svc, []]));
    const runs = c.heavy ? Math.min(3, RUNS) : RUNS;
    // the backends in turn, run by run, so a noisy stretch of the machine falls on both
    for (let i = 0; i < runs; i++) for (const svc of services) times.get(svc)!.push(await job(svc, c.path, c.body));
    const frames = c.body.params.duration ? Math.round(c.body.params.duration * (c.body.params.fps ?? 0)) : 1;
    const medians = services.map((svc) => median(times.get(svc)!.map((x) => x / 1000)));
    const cells = services.map((svc, k) => {
      const s = times.get(svc)!.map((x) => x / 1000);
      return `${medians[k]!.toFixed(3)} (${Math.min(...s).toFixed(3)}-${Math.max(...s).toFixed(3)}) | ${((medians[k]! * 1000) / frames).toFixed(1)}`;
    });
    const best = Math.min(...medians);
    const ref =
      c.reference && !Number.isNaN(c.reference)
        ? `${c.reference.toFixed(1)} (x${(c.reference / best).toFixed(1)})`
        : '';
    const ratio = services.length === 2 ? ` x${(medians[0]! / medians[1]!).toFixed(2)} |` : '';
    rows.push(`| ${c.name} | ${runs} | ${cells.join(' | ')} |${ratio} ${ref} | ${c.target?.toFixed(2) ?? ''} |`);
    if (c.body.params.codec) {
      const bytes = await Promise.all(
        services.map(async (svc) => {
          const r = await fetch(svc.base + svc.lastUrl!, { method: 'HEAD' });
          return Number(r.headers.get('content-length'));
        }),
      );
      const cellsOf = services.map((svc, k) => `${medians[k]!.toFixed(3)} | ${bytes[k]}`);
      codecRows.push(`| ${c.body.params.codec} | ${runs} | ${cellsOf.join(' | ')} |`);
    }
    for (const svc of services) {
      const t = svc.lastTimings;
      if (t)
        stageRows.push(
          `| ${c.name} | ${svc.gl} | ${STAGES.map((st) => (t[`${st}_ms`] ?? 0).toFixed(0)).join(' | ')} | ${t.render_ms.toFixed(0)} |`,
        );
    }
  }
  console.log(`\nGL backends: ${services.map((svc) => svc.label).join('; ')}`);
  console.log(
    '\nPOST to ready on a warm service (seconds: median (min-max); the reference runner on this kind of machine, lava-lamp 7-9 s)\n',
  );
  const heads = services.map((svc) => `${svc.gl} median (min-max) | ms per frame`);
  const ratioHead = services.length === 2 ? ` ${services[0]!.gl} / ${services[1]!.gl} |` : '';
  console.log(`| job | runs | ${heads.join(' | ')} |${ratioHead} reference runner (ratio to the fastest) | target |`);
  console.log(`|---|---|${services.map(() => '---|---').join('|')}|${services.length === 2 ? '---|' : ''}---|---|`);
  for (const r of rows) console.log(r);
  console.log(
    "\nWhere the time went in the last run (ms, summed over frames; a video's stages overlap, so they add up to",
  );
  console.log('more than the wall time; "wait" is the page time the pipeline could not hide)\n');
  if (codecRows.length) {
    console.log(
      '\nEach codec at its default quality: docs-api-quick, 1920x1080, 2 s at 30 fps (median seconds, bytes)\n',
    );
    console.log(`| codec | runs | ${services.map((svc) => `${svc.gl} s | ${svc.gl} bytes`).join(' | ')} |`);
    console.log(`|---|---|${services.map(() => '---|---').join('|')}|`);
    for (const r of codecRows) console.log(r);
    console.log('');
  }
  console.log(`| job | gl | ${STAGES.join(' | ')} | wait |`);
  console.log(`|---|---|${STAGES.map(() => '---').join('|')}|---|`);
  for (const r of stageRows) console.log(r);
  console.log('');
} finally {
  for (const svc of services) await svc.close();
}
