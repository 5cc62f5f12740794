// npx tsx bench/msaa-cost.ts [--gl egl] [--runs 15]: what a 1080p WebGL2 frame costs Chromium's GPU process with
// nothing drawn but a clear, by how its framebuffer is made: the canvas's own buffer with and without antialias,
// the resolve alone (a 2x2 scissored clear, so the read waits for the resolve only), and a multisampled
// framebuffer of our own resolved whole or a quarter of it (viewer/src/msaa-target.ts). Medians of the page's wait
// for the first pixel, the whole read after it, and the GPU process's CPU (all its threads, from /proc).
import { createRequire } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { CHROMIUM_FLAGS, defaultChromiumPath } from '../src/render/chromium.js';
import { GL_FLAGS, glEnv, type GlBackend } from '../src/render/gl-backend.js';

const { values: args } = parseArgs({
  options: { gl: { type: 'string', default: 'egl' }, runs: { type: 'string', default: '15' } },
});
const backend = args.gl as GlBackend;
const W = 1920;
const H = 1080;

function cpuMs(pid: number): number {
  let ns = 0;
  for (const t of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // thread ended
    }
  }
  return ns / 1e6;
}

function gpuProcessOf(root: number): number {
  const parent = new Map<number, number>();
  const gpu: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]));
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes('--type=gpu-process')) gpu.push(Number(d));
    } catch {
      // gone
    }
  }
  for (const p of gpu) for (let q: number | undefined = p; q && q > 1; q = parent.get(q)) if (q === root) return p;
  throw new Error('no GPU process');
}

interface Variant {
  label: string;
  /** the canvas's context attributes */
  antialias: boolean;
  /** draw into a multisampled framebuffer of our own, resolved by a blit of this fraction of each side */
  own?: number;
  /** clear only a 2x2 corner: the read waits for the resolve alone */
  corner?: boolean;
}
const VARIANTS: Variant[] = [
  { label: 'canvas, antialias (Chromium resolves)', antialias: true },
  { label: 'canvas, antialias, 2x2 clear', antialias: true, corner: true },
  { label: 'canvas, no antialias', antialias: false },
  { label: 'own 4x target, whole resolved', antialias: false, own: 1 },
  { label: 'own 4x target, a quarter resolved', antialias: false, own: 0.5 },
];

const pw = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
const browser = await pw.chromium.launch({
  executablePath: defaultChromiumPath(),
  headless: true,
  args: [...CHROMIUM_FLAGS, ...GL_FLAGS[backend]],
  env: glEnv(backend),
});
const page = await browser.newPage({ viewport: { width: W, height: H } });
await page.goto('about:blank');
const gpu = gpuProcessOf(process.pid);

await page.evaluate(
  ({ variants, W, H }) => {
    const made: unknown[] = [];
    for (const v of variants) {
      const c = document.createElement('canvas');
      c.width = W;
      c.height = H;
      c.style.visibility = 'hidden';
      document.body.appendChild(c);
      const gl = c.getContext('webgl2', { antialias: v.antialias, preserveDrawingBuffer: true, alpha: true })!;
      let fb: WebGLFramebuffer | null = null;
      let resolved: WebGLFramebuffer | null = null;
      if (v.own) {
        // [samples, format] of the colour, the depth and the resolved colour (no helper function: the page gets
        // this code as text, without tsx's helpers)
        const rbs: WebGLRenderbuffer[] = [];
        for (const [samples, format] of [
          [4, gl.RGBA8],
          [4, gl.DEPTH_COMPONENT24],
          [0, gl.RGBA8],
        ] as const) {
          const r = gl.createRenderbuffer()!;
          gl.bindRenderbuffer(gl.RENDERBUFFER, r);
          if (samples) gl.renderbufferStorageMultisample(gl.RENDERBUFFER, samples, format, W, H);
          else gl.renderbufferStorage(gl.RENDERBUFFER, format, W, H);
          rbs.push(r);
        }
        fb = gl.createFramebuffer();
        gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
        gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rbs[0]!);
        gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, rbs[1]!);
        resolved = gl.createFramebuffer();
        gl.bindFramebuffer(gl.FRAMEBUFFER, resolved);
        gl.framebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rbs[2]!);
      }
      made.push({ gl, fb, resolved, v, px: new Uint8Array(W * H * 4) });
    }
    (window as unknown as { made: unknown[] }).made = made;
  },
  { variants: VARIANTS, W, H },
);

const results = VARIANTS.map(() => [] as number[][]);
for (let run = 0; run < Number(args.runs); run++) {
  const order = VARIANTS.map((_, i) => i);
  if (run % 2) order.reverse();
  for (const i of order) {
    const g0 = cpuMs(gpu);
    const t = await page.evaluate(
      ({ i, W, H }) => {
        type Made = {
          gl: WebGL2RenderingContext;
          fb: WebGLFramebuffer | null;
          resolved: WebGLFramebuffer | null;
          v: Variant;
          px: Uint8Array;
        };
        const { gl, fb, resolved, v, px } = (window as unknown as { made: Made[] }).made[i]!;
        const t0 = performance.now();
        gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
        if (v.corner) {
          gl.enable(gl.SCISSOR_TEST);
          gl.scissor(0, 0, 2, 2);
        }
        // a new colour every time: an unchanged buffer would not be resolved again
        gl.clearColor(0.1, 0.2, 0.3, Math.random());
        gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
        gl.disable(gl.SCISSOR_TEST);
        const w = v.own ? W * v.own : W;
        const h = v.own ? H * v.own : H;
        if (resolved) {
          gl.bindFramebuffer(gl.READ_FRAMEBUFFER, fb);
          gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, resolved);
          gl.blitFramebuffer(0, 0, w, h, 0, 0, w, h, gl.COLOR_BUFFER_BIT, gl.NEAREST);
          gl.bindFramebuffer(gl.FRAMEBUFFER, resolved);
        }
        gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
        const t1 = performance.now();
        gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, px.subarray(0, w * h * 4));
        return [t1 - t0, performance.now() - t1];
      },
      { i, W, H },
    );
    results[i]!.push([...t, cpuMs(gpu) - g0]);
  }
}
await browser.close();

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;
console.log(`${W}x${H} ${backend}, ${args.runs} runs, medians (ms)\n`);
console.log('| framebuffer | wait for the first pixel | the whole read | GPU process CPU |');
console.log('|---|---|---|---|');
VARIANTS.forEach((v, i) =>
  console.log(`| ${v.label} | ${[0, 1, 2].map((k) => med(results[i]!.map((r) => r[k]!)).toFixed(1)).join(' | ')} |`),
);
