// npx tsx bench/frame-variants.ts: what a frame job's draw and read back cost in Chromium's GPU process under
// variants of the browser's flags, its environment and the page's canvas, so a change to how Chromium is started or
// how the canvas sits in the page is measured before it is made. One browser per variant, all warm at once, a frame
// job each in turn run by run (load, draw, the read the PNG takes); per variant: the page's draw and read times,
// the GPU process's CPU (llvmpipe or SwiftShader rasterise there) and the renderer's, and the pixels' SHA-256 (a
// variant that changes a pixel is not the same job).
//
//   npx tsx bench/frame-variants.ts [--runs 9] [--scene docs-api-quick@0,homepage@1.5] [--size 1920x1080]
//                                   [--variants base,detached,...] [--gl egl]
//
// A scene is name@t (a frame job at t) or name~s (s seconds of a 30 fps clip as one of a video job's two pages draws
// it: every other frame, each read as a video reads it, the damaged rectangle as I420; times summed over the clip).
//
// Run `npm run build` first (the page is dist/viewer).
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import { compile } from '../src/lang/index.js';
import { CHROMIUM_FLAGS, defaultChromiumPath } from '../src/render/chromium.js';
import { GL_FLAGS, glEnv, type GlBackend } from '../src/render/gl-backend.js';
import { openViewerFrom } from '../test/viewer/helper.js';
import { examplesDir } from '../test/helpers/shared.js';
import { builtViewer } from '../test/helpers/built.js';

const { values: args } = parseArgs({
  options: {
    runs: { type: 'string', default: '9' },
    scene: { type: 'string', default: 'docs-api-quick@0,homepage@1.5' },
    size: { type: 'string', default: '1920x1080' },
    variants: { type: 'string', default: 'base' },
    gl: { type: 'string', default: 'egl' },
  },
});

interface Variant {
  /** extra Chromium switches */
  flags?: string[];
  /** extra environment of the browser */
  env?: Record<string, string>;
  /** run in the page once, after it loads (the service's page hides its canvas) */
  setup?: string;
  /** the page's query string (`?offscreen`: drawn into the viewer's own target, as the service's page is) */
  query?: string;
}

const HIDE = `document.querySelector('canvas').style.visibility = 'hidden'`;
const VARIANTS: Record<string, Variant> = {
  base: { setup: HIDE, query: '?offscreen' },
  onscreen: { setup: HIDE },
  visible: {},
  detached: { setup: `document.querySelector('canvas').remove()` },
  'display-none': { setup: `document.querySelector('canvas').style.display = 'none'` },
  lp1: { setup: HIDE, env: { LP_NUM_THREADS: '1' } },
  lp0: { setup: HIDE, env: { LP_NUM_THREADS: '0' } },
  lp4: { setup: HIDE, env: { LP_NUM_THREADS: '4' } },
  'no-vsync': { setup: HIDE, flags: ['--disable-gpu-vsync', '--disable-frame-rate-limit'] },
  'detached-no-vsync': {
    setup: `document.querySelector('canvas').remove()`,
    flags: ['--disable-gpu-vsync', '--disable-frame-rate-limit'],
  },
  'no-gpu-compositing': { setup: HIDE, flags: ['--disable-gpu-compositing'] },
  'detached-no-gpu-compositing': {
    setup: `document.querySelector('canvas').remove()`,
    flags: ['--disable-gpu-compositing'],
  },
};

const [W, H] = args.size!.split('x').map(Number) as [number, number];
const RUNS = Number(args.runs);
const backend = args.gl as GlBackend;
const names = args.variants!.split(',');

function descendants(root: number): Map<number, string> {
  const parent = new Map<number, number>();
  const cmd = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      cmd.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8'));
    } catch {
      /* gone */
    }
  }
  const out = new Map<number, string>();
  for (const [pid, c] of cmd) {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parent.get(p))
      if (p === root) {
        out.set(pid, c);
        break;
      }
  }
  return out;
}

/** CPU ms of every thread of a process so far */
function cpuMs(pid: number): number {
  let ns = 0;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* thread ended */
      }
    }
  } catch {
    return NaN;
  }
  return ns / 1e6;
}

interface Open {
  name: string;
  browser: Browser;
  page: Page;
  gpu: number;
  renderer: number;
}

const pw = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
async function open(name: string): Promise<Open> {
  const v = VARIANTS[name];
  if (!v) throw new Error(`no variant ${name}: ${Object.keys(VARIANTS).join(', ')}`);
  const browser = await pw.chromium.launch({
    executablePath: defaultChromiumPath(),
    headless: true,
    args: [...CHROMIUM_FLAGS, ...GL_FLAGS[backend], ...(v.flags ?? [])],
    env: { ...glEnv(backend), ...(v.env ?? {}) },
  });
  const page = await openViewerFrom(browser, builtViewer(), W, H, v.query);
  if (v.setup) await page.evaluate(v.setup);
  // the browser's pid: the one launched child of ours whose descendants hold a gpu-process
  const procs = descendants(process.pid);
  let gpu = 0;
  let renderer = 0;
  const seen = new Set(opened.flatMap((o) => [o.gpu, o.renderer]));
  for (const [pid, c] of procs) {
    if (seen.has(pid)) continue;
    if (c.includes('--type=gpu-process')) gpu = pid;
    else if (c.includes('--type=renderer')) renderer = pid;
  }
  return { name, browser, page, gpu, renderer };
}

const opened: Open[] = [];
for (const n of names) opened.push(await open(n));

// name@t: a frame job at t; name~s: s seconds of a 30 fps clip as one of a video's two pages draws it (every
// other frame), each read as a video reads it (the damaged rectangle as I420)
const scenes = args.scene!.split(',').map((s) => {
  const [name, t] = s.split(/[@~]/) as [string, string];
  const c = compile(readFileSync(join(examplesDir, `${name}.cm`), 'utf8'));
  if (!c.program) throw new Error(`${name} does not compile`);
  const clip = s.includes('~');
  const times = clip ? Array.from({ length: Math.round(Number(t) * 15) }, (_, i) => (2 * i) / 30) : [Number(t)];
  return {
    label: s,
    clip,
    runner: c.program.runner,
    json: times.map((x) => JSON.stringify(c.program!.sceneAt(x).value)),
  };
});

type Sample = { draw: number; read: number; total: number; gpu: number; rend: number; hash: string };
const samples = new Map<string, Sample[]>();

async function job(o: Open, s: (typeof scenes)[number]): Promise<Sample> {
  const g0 = cpuMs(o.gpu);
  const r0 = cpuMs(o.renderer);
  const t = await o.page.evaluate(
    async ({ json, w, h, runner, clip }) => {
      const v = window.cmViewer;
      const t0 = performance.now();
      const l = await v.load({ width: w, height: h, runner });
      if (!l.ok) throw new Error(l.error.message);
      let draw = 0;
      let read = 0;
      for (const j of json) {
        const a = performance.now();
        const d = await v.draw(JSON.parse(j), j);
        if (!d.ok) throw new Error(d.error.message);
        const b = performance.now();
        if (clip) v.pixelsI420(v.damage ?? undefined);
        else v.pixelsAsRead();
        draw += b - a;
        read += performance.now() - b;
      }
      return [draw, read, performance.now() - t0];
    },
    { json: s.json, w: W, h: H, runner: s.runner, clip: s.clip },
  );
  const gpu = cpuMs(o.gpu) - g0;
  const rend = cpuMs(o.renderer) - r0;
  // not a secure origin, so no crypto.subtle: two 32-bit hashes of the words (a changed pixel changes them)
  const hash = await o.page.evaluate(() => {
    const px = window.cmViewer.pixelsAsRead();
    const w = new Uint32Array(px.buffer, px.byteOffset, px.byteLength >>> 2);
    let a = 0x811c9dc5;
    let b = 0;
    for (let i = 0; i < w.length; i++) {
      a = Math.imul(a ^ w[i]!, 0x01000193);
      b = (b + Math.imul(w[i]!, i + 1)) | 0;
    }
    return ((a >>> 0).toString(16) + (b >>> 0).toString(16)).padStart(16, '0');
  });
  return { draw: t[0]!, read: t[1]!, total: t[2]!, gpu, rend, hash };
}

// a warm-up job each (shaders compiled, glyphs built)
for (const o of opened) for (const s of scenes) await job(o, s);
for (let run = 0; run < RUNS; run++) {
  const order = run % 2 ? [...opened].reverse() : opened;
  for (const s of scenes)
    for (const o of order) {
      const k = `${s.label}|${o.name}`;
      samples.set(k, [...(samples.get(k) ?? []), await job(o, s)]);
    }
}
for (const o of opened) await o.browser.close();

const med = (xs: number[]) => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length % 2 ? a[(a.length - 1) / 2]! : (a[a.length / 2 - 1]! + a[a.length / 2]!) / 2;
};
console.log(`${W}x${H} ${backend}, ${RUNS} runs, medians (ms)`);
console.log(
  ['scene'.padEnd(22), 'variant'.padEnd(28), 'draw', 'read', 'total', 'gpu cpu', 'rend cpu', 'sha256'].join('\t'),
);
for (const s of scenes) {
  const baseHash = samples.get(`${s.label}|${names[0]}`)![0]!.hash;
  for (const n of names) {
    const ss = samples.get(`${s.label}|${n}`)!;
    const hs = new Set(ss.map((x) => x.hash));
    const same = hs.size === 1 && hs.has(baseHash) ? 'same' : `DIFFERS ${[...hs].map((h) => h.slice(0, 12))}`;
    const f = (k: keyof Omit<Sample, 'hash'>) => med(ss.map((x) => x[k])).toFixed(1);
    console.log(
      [s.label.padEnd(22), n.padEnd(28), f('draw'), f('read'), f('total'), f('gpu'), f('rend'), same].join('\t'),
    );
  }
}
