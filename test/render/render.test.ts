// End to end through real Chromium (software WebGL), the built viewer and ffmpeg: PNG and MP4 outputs, sizes,
// byte-identical repeats, job errors, assets, the warm browser's relaunch and its network fence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import {
  startApp,
  realRenderer,
  example,
  ownExample,
  ownExampleImage,
  sharedDir,
  corpusSkip,
  multipart,
  type TestApp,
} from '../helpers/app.js';
import { runJob, post, waitJob } from '../helpers/job-client.js';
import { ownExamplesDir } from '../helpers/shared.js';
import { LAYERED, MOVING, SPIN, decodeFrames, psnr } from '../helpers/video.js';
import { probe } from '../../src/render/ffmpeg/probe.js';
import { encodePng } from '../../src/render/png.js';
import { compile, designFrame, colorToSrgb8 } from '../../src/lang/index.js';
import type { ChromiumRenderer } from '../../src/render/chromium-renderer.js';
import { until } from '../helpers/until.js';
import { killBrowser } from '../helpers/kill-browser.js';

let t: TestApp;
let renderer: ChromiumRenderer;
before(async () => {
  renderer = realRenderer();
  t = await startApp({ renderer });
});
after(() => t.close());

// examples/hello.cm: a 1920x1080 background and a 300px #ff3399 square in the middle.
const QUICK = ownExample('hello.cm');
const SQUARE = `runner "0.0.3";\nuse std.shapes.*;\nscene sq() -> Frame {\n  let bg = rect(width: 1080px, height: 1080px, fill: #204060);\n  let fg = rect(width: 300px, height: 300px, fill: #ff3399);\n  compose [bg, fg]\n}\n`;

async function download(url: string): Promise<Buffer> {
  const r = await t.app.inject({ url });
  assert.equal(r.statusCode, 200);
  return r.rawPayload;
}
function outputPath(job: { job_id: string; url: string }) {
  return join(t.dataDir, 'outputs', job.url.split('/').pop()!);
}
function pixel(png: PNG, x: number, y: number): [number, number, number, number] {
  const i = (y * png.width + x) * 4;
  return [png.data[i], png.data[i + 1], png.data[i + 2], png.data[i + 3]];
}
function near(a: number[], b: number[], tol: number, what: string) {
  for (let i = 0; i < b.length; i++) assert.ok(Math.abs(a[i] - b[i]) <= tol, `${what}: got ${a} expected ${b}`);
}
function backgroundOf(source: string): number[] {
  const bg = designFrame(compile(source).program!.sceneAt(0).value).background;
  assert.equal(bg?.kind, 'color');
  const c = colorToSrgb8((bg as { color: Parameters<typeof colorToSrgb8>[0] }).color)!;
  return [c.r, c.g, c.b];
}

test('hello.cm as a frame: 1920x1080 PNG, centre #ff3399, corner the background', async () => {
  const job = (await runJob(t.app, '/v1/frame', { source: QUICK })).json();
  assert.equal(job.status, 'ready', JSON.stringify(job));
  assert.equal(job.mime, 'image/png');
  assert.deepEqual([job.width, job.height], [1920, 1080]);
  const png = PNG.sync.read(await download(job.url));
  assert.deepEqual([png.width, png.height], [1920, 1080]);
  assert.deepEqual(pixel(png, 960, 540), [0xff, 0x33, 0x99, 255]);
  const bg = backgroundOf(QUICK);
  for (const [x, y] of [
    [0, 0],
    [1919, 0],
    [0, 1079],
    [1919, 1079],
  ])
    near(pixel(png, x, y), [...bg, 255], 1, `corner ${x},${y}`);
  // the 300px square spans 300 output px: just inside its edge is pink, just outside is background
  near(pixel(png, 960 - 148, 540), [0xff, 0x33, 0x99, 255], 1, 'inside left edge');
  near(pixel(png, 960 - 153, 540), [...bg, 255], 1, 'outside left edge');
});

test(
  "docs-api-quick: the reference runner's frame agrees on the corner and the centre",
  { skip: corpusSkip('examples/docs-api-quick.cm and its reference frame') },
  async () => {
    const job = (await runJob(t.app, '/v1/frame', { source: example('docs-api-quick.cm') })).json();
    assert.equal(job.status, 'ready', JSON.stringify(job));
    const png = PNG.sync.read(await download(job.url));
    const ref = PNG.sync.read(readFileSync(join(sharedDir, 'reference', 'docs-api-quick@0.0.png')));
    near(pixel(png, 0, 0), pixel(ref, 0, 0), 2, 'corner vs reference');
    near(pixel(png, 960, 540), pixel(ref, 960, 540), 2, 'centre vs reference');
  },
);

test('hello.cm as a 2 s video: h264, yuv420p, 60 frames, 2.0 s, bt709, +faststart', async () => {
  const r = await runJob(t.app, '/v1/render', { source: QUICK, params: { duration: 2 } });
  const job = r.json();
  assert.equal(job.status, 'ready', JSON.stringify(job));
  assert.equal(job.mime, 'video/mp4');
  assert.deepEqual([job.width, job.height], [1920, 1080]);
  const file = outputPath(job);
  const p = await probe(file);
  assert.equal(p.codec, 'h264');
  assert.equal(p.pixFmt, 'yuv420p');
  assert.equal(p.frames, 60);
  assert.equal(p.duration, 2);
  assert.deepEqual([p.width, p.height], [1920, 1080]);
  assert.equal(p.colorSpace, 'bt709');
  const bytes = readFileSync(file);
  const moov = bytes.indexOf('moov');
  const mdat = bytes.indexOf('mdat');
  assert.ok(moov > 0 && mdat > 0 && moov < mdat, '+faststart puts moov before mdat');
  const frames = decodeFrames(file, 1920, 1080);
  assert.equal(frames.length, 60);
  const c = (1080 / 2) * 1920 * 3 + (1920 / 2) * 3;
  near([...frames[59].subarray(c, c + 3)], [0xff, 0x33, 0x99], 6, 'video centre pixel');
});

test('the same request twice gives identical bytes (frame and video)', async () => {
  for (const [url, body] of [
    ['/v1/frame', { source: QUICK, params: { at: 0.5 } }],
    ['/v1/render', { source: MOVING, params: { fps: 12, width: 640, height: 360 } }],
  ] as const) {
    const a = (await runJob(t.app, url, body)).json();
    const b = (await runJob(t.app, url, body)).json();
    assert.equal(a.status, 'ready');
    assert.notEqual(a.job_id, b.job_id);
    assert.ok(readFileSync(outputPath(a)).equals(readFileSync(outputPath(b))), `${url}: outputs differ`);
  }
});

test('an animated scene: every video frame is drawn at its own time (the square moves right)', async () => {
  const job = (
    await runJob(t.app, '/v1/render', { source: MOVING, params: { fps: 10, width: 640, height: 360 } })
  ).json();
  assert.equal(job.status, 'ready', JSON.stringify(job));
  const frames = decodeFrames(outputPath(job), 640, 360);
  assert.equal(frames.length, 10);
  const centroids = frames.map((f) => {
    let sum = 0;
    let n = 0;
    const y = 180;
    for (let x = 0; x < 640; x++) if (f[(y * 640 + x) * 3] > 128) ((sum += x), n++);
    return n ? sum / n : NaN;
  });
  for (let i = 1; i < centroids.length; i++) assert.ok(centroids[i] > centroids[i - 1] + 5, `frame ${i}: ${centroids}`);
  // t = 0: x = -400 design px -> 320 - 400/3 output px
  assert.ok(Math.abs(centroids[0] - (320 - 400 / 3)) < 3, `first centroid ${centroids[0]}`);
});

test('a 1080x1080 scene with default params renders 1080x1080 (frame and video)', async () => {
  const f = (await runJob(t.app, '/v1/frame', { source: SQUARE })).json();
  assert.deepEqual([f.width, f.height], [1080, 1080]);
  const png = PNG.sync.read(await download(f.url));
  assert.deepEqual([png.width, png.height], [1080, 1080]);
  near(pixel(png, 540, 540), [0xff, 0x33, 0x99, 255], 1, 'centre');
  near(pixel(png, 5, 5), [0x20, 0x40, 0x60, 255], 1, 'corner');
  const v = (await runJob(t.app, '/v1/render', { source: SQUARE, params: { duration: 0.2, fps: 10 } })).json();
  const p = await probe(outputPath(v));
  assert.deepEqual([p.width, p.height, p.frames], [1080, 1080, 2]);
});

test('output size rules: one side follows the aspect, both fit inside with background margins, video sizes even', async () => {
  const w = (await runJob(t.app, '/v1/frame', { source: QUICK, params: { width: 960 } })).json();
  assert.deepEqual([w.width, w.height], [960, 540]);
  const h = (await runJob(t.app, '/v1/frame', { source: SQUARE, params: { height: 200 } })).json();
  assert.deepEqual([h.width, h.height], [200, 200]);
  const both = (await runJob(t.app, '/v1/frame', { source: SQUARE, params: { width: 640, height: 360 } })).json();
  assert.deepEqual([both.width, both.height], [640, 360]);
  const png = PNG.sync.read(await download(both.url));
  assert.deepEqual([png.width, png.height], [640, 360]);
  near(pixel(png, 2, 2), [0x20, 0x40, 0x60, 255], 1, 'margin takes the background');
  near(pixel(png, 320, 180), [0xff, 0x33, 0x99, 255], 1, 'centred content');
  // the 300/1080 square is 100 px tall in a 360 px frame
  near(pixel(png, 320, 180 - 48), [0xff, 0x33, 0x99, 255], 1, 'inside top edge');
  near(pixel(png, 320, 180 - 53), [0x20, 0x40, 0x60, 255], 1, 'outside top edge');
  const odd = (
    await runJob(t.app, '/v1/render', { source: QUICK, params: { width: 101, height: 51, duration: 0.1, fps: 10 } })
  ).json();
  assert.deepEqual([odd.width, odd.height], [102, 52]);
  const p = await probe(outputPath(odd));
  assert.deepEqual([p.width, p.height, p.frames], [102, 52, 1]);
});

test(
  'compile errors end the job in error with CODE text at line L, column C, the code and the diagnostics',
  { skip: corpusSkip('examples/errors') },
  async () => {
    const r = await runJob(t.app, '/v1/frame', { source: example('errors/syntax.cm') });
    assert.equal(r.statusCode, 500);
    const j = r.json();
    assert.equal(j.status, 'error');
    assert.equal(j.code, 'PAR100');
    assert.match(j.message, /^PAR100 .+ at line 5, column \d+$/);
    assert.ok(Array.isArray(j.diagnostics) && j.diagnostics[0].code === 'PAR100' && j.diagnostics[0].line === 5);
    const expected: Record<string, string> = {
      'syntax.cm': 'PAR100',
      'unknown-ident.cm': 'NAM003',
      'unknown-function.cm': 'NAM003',
      'forward-ref.cm': 'NAM004',
      'extrude-circle.cm': 'NAM007',
      'type-mismatch.cm': 'TYP002',
      'unit-mismatch.cm': 'UNT001',
      'unknown-runner.cm': 'RUN001',
      'missing-image.cm': 'ASS001',
    };
    const files = readdirSync(join(sharedDir, 'examples', 'errors')).filter((f) => f.endsWith('.cm'));
    assert.deepEqual(files.sort(), Object.keys(expected).sort());
    for (const f of files) {
      for (const url of ['/v1/frame', '/v1/render']) {
        const e = (await runJob(t.app, url, { source: example(`errors/${f}`) })).json();
        assert.equal(e.status, 'error', `${f} ${url}`);
        assert.equal(e.code, expected[f], `${f}: ${e.message}`);
        assert.match(e.message, new RegExp(`^${expected[f]} .+ at line \\d+, column \\d+$`), f);
      }
    }
  },
);

test('a missing asset: ASS001 naming the path and its position', async () => {
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/does-not-exist.jpg").fit(cover);\n  compose [bg]\n}\n`;
  const j = (await runJob(t.app, '/v1/frame', { source })).json();
  assert.equal(j.status, 'error');
  assert.equal(j.code, 'ASS001');
  assert.equal(
    j.message,
    'ASS001 image "/img/does-not-exist.jpg" is not an uploaded asset of this job at line 4, column 18',
  );
  assert.equal(j.diagnostics[0].code, 'ASS001');
});

test('an uploaded asset mapped to its in-source path is drawn', async () => {
  const m = multipart([{ name: 'f', filename: 'sunset.png', data: ownExampleImage('sunset.png') }]);
  const up = await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers });
  assert.equal(up.statusCode, 200);
  const key = up.json().assets['sunset.png'];
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  let bg = image("/img/sunset.png").fit(cover);\n  compose [bg]\n}\n`;
  const j = (
    await runJob(t.app, '/v1/frame', { source, assets: { '/img/sunset.png': key }, params: { width: 320 } })
  ).json();
  assert.equal(j.status, 'ready', JSON.stringify(j));
  const png = PNG.sync.read(await download(j.url));
  const seen = new Set<string>();
  for (let y = 0; y < png.height; y += 17)
    for (let x = 0; x < png.width; x += 13) seen.add(pixel(png, x, y).slice(0, 3).join(','));
  assert.ok(seen.size > 50, `the image was not drawn (${seen.size} distinct colours)`);
  // without the mapping the same source is ASS001
  const e = (await runJob(t.app, '/v1/frame', { source })).json();
  assert.equal(e.code, 'ASS001');
});

test('two jobs mapping the same path to different uploads each get their own image', async () => {
  const solid = (rgb: number[]) =>
    encodePng(
      new Uint8Array(64 * 64 * 4).map((_, i) => (i % 4 === 3 ? 255 : rgb[i % 4])),
      64,
      64,
    );
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [image("/img/a.png").fit(cover)]\n}\n`;
  const colours = [
    [230, 20, 20],
    [20, 20, 230],
    [230, 20, 20],
  ];
  for (const rgb of colours) {
    const m = multipart([{ name: 'f', filename: 'a.png', data: solid(rgb) }]);
    const key = (
      await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers })
    ).json().assets['a.png'];
    const j = (
      await runJob(t.app, '/v1/frame', { source, assets: { '/img/a.png': key }, params: { width: 64 } })
    ).json();
    assert.equal(j.status, 'ready', JSON.stringify(j));
    const png = PNG.sync.read(await download(j.url));
    near(pixel(png, 32, 18), [...rgb, 255], 3, `image ${rgb}`);
  }
});

test('an upload with image magic but a broken body fails its job with ASS001 "could not be loaded"; the next job renders', async () => {
  const bad = Buffer.concat([encodePng(new Uint8Array(16).fill(255), 2, 2).subarray(0, 16), Buffer.alloc(2000, 0x5a)]);
  const m = multipart([{ name: 'f', filename: 'bad.png', data: bad }]);
  const key = (await t.app.inject({ method: 'POST', url: '/v1/assets', payload: m.payload, headers: m.headers })).json()
    .assets['bad.png'];
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene s() -> Frame {\n  compose [image("/img/bad.png").fit(cover)]\n}\n`;
  for (const url of ['/v1/frame', '/v1/render']) {
    const r = await runJob(t.app, url, {
      source,
      assets: { '/img/bad.png': key },
      params: { width: 64, height: 64, ...(url === '/v1/render' ? { duration: 0.2, fps: 10 } : {}) },
    });
    assert.equal(r.statusCode, 500);
    assert.equal(r.json().code, 'ASS001');
    assert.match(r.json().message, /^ASS001 image "\/img\/bad\.png" could not be loaded at line 4, column 18$/);
  }
  assert.equal((await runJob(t.app, '/v1/frame', { source: QUICK, params: { width: 64 } })).json().status, 'ready');
});

test('GET /test renders the built-in two-rectangle scene synchronously', async () => {
  const r = await t.app.inject({ url: '/test' });
  assert.equal(r.statusCode, 200);
  assert.equal(r.headers['content-type'], 'image/png');
  const png = PNG.sync.read(r.rawPayload);
  assert.deepEqual([png.width, png.height], [640, 360]);
  near(pixel(png, 320, 180), [0xff, 0x33, 0x99, 255], 1, 'centre');
  near(pixel(png, 1, 1), [0x10, 0x20, 0x30, 255], 1, 'corner');
});

test('the viewer page reaches only its own files and the job assets: every other request is refused', async () => {
  const page = await renderer.browser.acquire();
  try {
    const results = (await page.page.evaluate(`(async () => {
      const tryFetch = async (u) => { try { const r = await fetch(u); return r.status; } catch { return 'refused'; } };
      return {
        own: await tryFetch('/__cmrender__/viewer.js'),
        external: await tryFetch('https://example.com/'),
        loopback: await tryFetch('http://127.0.0.1:1/'),
        unmapped: await tryFetch('/img/earth.jpg'),
        data: await tryFetch('/etc/passwd'),
        post: await fetch('/__cmrender__/viewer.js', { method: 'POST', body: 'x' }).then((r) => r.status, () => 'refused'),
        dataImage: await new Promise((res) => { const i = new Image(); i.onload = () => res('loaded'); i.onerror = () => res('refused'); i.src = 'data:image/gif;base64,R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw=='; }),
        blobImage: await new Promise((res) => { const u = URL.createObjectURL(new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/svg+xml' })); const i = new Image(); i.onload = () => res('loaded'); i.onerror = () => res('refused'); i.src = u; }),
        ws: await new Promise((res) => { try { const w = new WebSocket('ws://127.0.0.1:9/'); w.onopen = () => res('open'); w.onerror = () => res('refused'); w.onclose = () => res('refused'); } catch { res('refused'); } }),
      };
    })()`)) as Record<string, unknown>;
    assert.deepEqual(results, {
      own: 200,
      external: 'refused',
      loopback: 'refused',
      unmapped: 'refused',
      data: 'refused',
      post: 'refused',
      dataImage: 'refused',
      blobImage: 'refused',
      ws: 'refused',
    });
  } finally {
    renderer.browser.release(page, false);
  }
});

test('a job never pays a browser launch; when Chromium dies it is relaunched and jobs go on', async () => {
  const launches = renderer.browser.launches;
  const a = (await runJob(t.app, '/v1/frame', { source: QUICK, params: { width: 320 } })).json();
  assert.equal(a.status, 'ready');
  assert.equal(renderer.browser.launches, launches, 'no launch for a job on a warm service');
  killBrowser(renderer.browser);
  await until('the browser relaunched', () => renderer.browser.launches !== launches, 5_000);
  assert.equal(renderer.browser.launches, launches + 1);
  const b = (await runJob(t.app, '/v1/frame', { source: QUICK, params: { width: 320 } })).json();
  assert.equal(b.status, 'ready', JSON.stringify(b));
  // a fresh browser and page draw the same bytes as the warm page did
  assert.ok(readFileSync(outputPath(a)).equals(readFileSync(outputPath(b))));
});

test('pending video jobs report progress and queue positions while they wait', async () => {
  const first = (
    await post(t.app, '/v1/render', { source: MOVING, params: { fps: 30, duration: 3, width: 320, height: 180 } })
  ).json().job_id;
  const second = (await post(t.app, '/v1/frame', { source: QUICK, params: { width: 64 } })).json().job_id;
  const seen = new Set<number>();
  let pos2: number | undefined;
  // both read at a fixed quick interval until the video ends
  await until(
    () => `the video to end (progress seen: ${[...seen]})`,
    async () => {
      const v = (await t.app.inject({ url: `/v1/jobs/${first}` })).json();
      if (v.status !== 'pending') return true;
      if (v.queue_position === 0) seen.add(v.progress);
      // first seen behind the video's first chunk; it may then be drawn between two chunks (short work first, as a
      // Redis worker takes it)
      const w = (await t.app.inject({ url: `/v1/jobs/${second}` })).json();
      if (w.status === 'pending' && pos2 === undefined) pos2 = w.queue_position;
      return false;
    },
    { timeoutMs: 120_000, pollMs: 20 },
  );
  assert.equal(pos2, 1);
  assert.ok(
    [...seen].some((p) => p > 0 && p < 1),
    `progress values seen: ${[...seen]}`,
  );
  assert.equal((await waitJob(t.app, second)).json().status, 'ready');
});

test('a render says where its time went: per-stage timings for a frame and a video (npm run bench prints them)', async () => {
  const dir = join(t.dataDir, 'stage-times');
  const hooks = { signal: new AbortController().signal };
  const frame = await renderer.render(
    {
      id: 'stages-frame',
      kind: 'frame',
      source: MOVING,
      params: { width: 320, height: 180 },
      assets: {},
      outPath: join(dir, 'f.png'),
    },
    hooks,
  );
  for (const k of ['draw_ms', 'read_ms', 'pack_ms', 'transfer_ms', 'decode_ms', 'encode_ms', 'write_ms'] as const) {
    assert.equal(typeof frame.timings[k], 'number', `frame ${k}`);
    assert.ok(frame.timings[k]! >= 0, `frame ${k}`);
  }
  assert.equal(frame.timings.convert_ms, undefined, 'a PNG converts nothing to I420');
  const video = await renderer.render(
    {
      id: 'stages-video',
      kind: 'video',
      source: MOVING,
      params: { width: 320, height: 180, duration: 1, fps: 10 },
      assets: {},
      outPath: join(dir, 'v.mp4'),
    },
    hooks,
  );
  for (const k of ['evaluate_ms', 'draw_ms', 'read_ms', 'transfer_ms', 'decode_ms', 'encode_ms', 'write_ms'] as const) {
    assert.equal(typeof video.timings[k], 'number', `video ${k}`);
  }
  assert.equal(video.timings.convert_ms, undefined, 'video frames arrive as I420: Node converts nothing');
  assert.equal((await probe(join(dir, 'v.mp4'))).frames, 10);
});

test('video frames converted to I420 in the page give the same MP4 bytes as converting RGBA in Node', async () => {
  // the Node conversion (rgbaToI420) is the oracle; 322x182 makes a picture that is not a whole number of words
  const nodeSide = realRenderer(1, { videoReadback: 'rgba' });
  await nodeSide.start();
  try {
    const dir = join(t.dataDir, 'i420');
    const hooks = { signal: new AbortController().signal };
    const cases = [
      {
        name: 'glyphs-3d',
        source: ownExample('glyphs-3d.cm'),
        params: { width: 640, height: 360, duration: 0.5, fps: 10 },
      },
      { name: 'moving 2D', source: MOVING, params: { width: 322, height: 182, duration: 0.5, fps: 10 } },
      {
        name: 'image',
        source: ownExample('image.cm'),
        params: { width: 480, height: 270, duration: 0.3, fps: 10 },
        assets: { '/img/sunset.png': join(ownExamplesDir, 'img', 'sunset.png') },
      },
    ];
    for (const c of cases) {
      const id = c.name.replace(/\W/g, '_');
      const job = (side: string) => ({
        id: `${id}-${side}`,
        kind: 'video' as const,
        source: c.source,
        params: c.params,
        assets: c.assets ?? {},
        outPath: join(dir, `${id}-${side}.mp4`),
      });
      await renderer.render(job('page'), hooks);
      await nodeSide.render(job('node'), hooks);
      const page = readFileSync(join(dir, `${id}-page.mp4`));
      const node = readFileSync(join(dir, `${id}-node.mp4`));
      assert.ok(page.length > 1000, c.name);
      assert.ok(
        page.equals(node),
        `${c.name}: the page's I420 differs from Node's (${page.length} vs ${node.length} bytes)`,
      );
    }
  } finally {
    await nodeSide.close();
  }
});

// A square that jumps between two places every quarter second: at 4 fps the values alternate X, Y, X, Y, so with two
// pages taking the runs in turn each page is asked to draw the value it already shows (its "unchanged" path).
const TOGGLE = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene toggle(duration: Duration = 3s) -> Frame {
  let x = animate { 0s => -300px, 250ms => 300px, 500ms => -300px, 750ms => 300px, 1s => -300px,
                    1250ms => 300px, 1500ms => -300px, 1750ms => 300px, 2s => -300px };
  let bg = rect(width: 1920px, height: 1080px, fill: #101820);
  let fg = rect(width: 240px, height: 240px, fill: #f0c040).translate(x: x);
  compose [bg, fg]
}
`;

test('two pages drawing alternate frames give the same MP4 bytes as one page, and every frame is the PNG of its time', async () => {
  const onePage = realRenderer(1, { videoPages: 1 });
  await onePage.start();
  try {
    const dir = join(t.dataDir, 'pages');
    const hooks = { signal: new AbortController().signal };
    const cases = [
      {
        name: 'glyphs-3d',
        source: ownExample('glyphs-3d.cm'),
        params: { width: 320, height: 180, duration: 1, fps: 10 },
      },
      { name: 'toggle', source: TOGGLE, params: { width: 320, height: 180, duration: 3, fps: 4 } },
      {
        name: 'image',
        source: ownExample('image.cm'),
        params: { width: 320, height: 180, duration: 1, fps: 10 },
        assets: { '/img/sunset.png': join(ownExamplesDir, 'img', 'sunset.png') },
      },
    ];
    for (const c of cases) {
      const job = (side: string, kind: 'video' | 'frame' = 'video', at?: number) => ({
        id: `${c.name}-${side}`,
        kind,
        source: c.source,
        params: kind === 'video' ? c.params : { width: c.params.width, height: c.params.height, at },
        assets: c.assets ?? {},
        outPath: join(dir, `${c.name}-${side}.${kind === 'video' ? 'mp4' : 'png'}`),
      });
      const two = await renderer.render(job('two'), hooks);
      await onePage.render(job('one'), hooks);
      const twoBytes = readFileSync(join(dir, `${c.name}-two.mp4`));
      assert.ok(twoBytes.equals(readFileSync(join(dir, `${c.name}-one.mp4`))), `${c.name}: 2 pages differ from 1`);
      const frames = decodeFrames(join(dir, `${c.name}-two.mp4`), c.params.width, c.params.height);
      assert.equal(frames.length, two.frames, c.name);
      for (let i = 0; i < frames.length; i++) {
        await renderer.render(job(`f${i}`, 'frame', i / c.params.fps), hooks);
        const png = PNG.sync.read(readFileSync(join(dir, `${c.name}-f${i}.png`)));
        const db = psnr(frames[i], png);
        assert.ok(db >= 35, `${c.name} frame ${i}: ${db.toFixed(1)} dB against the PNG of t = ${i / c.params.fps}`);
      }
    }
  } finally {
    await onePage.close();
  }
});

test('pages that redraw only what changed give the same MP4 and GIF bytes as pages that draw every frame whole', async () => {
  const whole = realRenderer(1, { partialRedraw: false });
  await whole.start();
  try {
    const dir = join(t.dataDir, 'partial');
    const hooks = { signal: new AbortController().signal };
    const cases = [
      { name: 'spin', source: SPIN, kind: 'video' as const, params: { width: 320, height: 180, duration: 1, fps: 10 } },
      {
        name: 'layered',
        source: LAYERED,
        kind: 'video' as const,
        params: { width: 320, height: 180, duration: 1, fps: 10 },
      },
      // two pages, each asked for the value it already shows
      {
        name: 'toggle',
        source: TOGGLE,
        kind: 'video' as const,
        params: { width: 320, height: 180, duration: 3, fps: 4 },
      },
      {
        name: 'image',
        source: ownExample('image.cm'),
        kind: 'video' as const,
        params: { width: 320, height: 180, duration: 1, fps: 10 },
        assets: { '/img/sunset.png': join(ownExamplesDir, 'img', 'sunset.png') },
      },
      // a GIF's pictures are RGBA, patched row by row
      { name: 'gif', source: LAYERED, kind: 'gif' as const, params: { width: 321, duration: 1, fps: 10 } },
    ];
    for (const c of cases) {
      const ext = c.kind === 'gif' ? 'gif' : 'mp4';
      const job = (side: string) => ({
        id: `${c.name}-${side}`,
        kind: c.kind,
        source: c.source,
        params: c.params,
        assets: c.assets ?? {},
        outPath: join(dir, `${c.name}-${side}.${ext}`),
      });
      await renderer.render(job('partial'), hooks);
      await whole.render(job('whole'), hooks);
      const partial = readFileSync(join(dir, `${c.name}-partial.${ext}`));
      const drawnWhole = readFileSync(join(dir, `${c.name}-whole.${ext}`));
      assert.ok(partial.length > 1000, c.name);
      assert.ok(partial.equals(drawnWhole), `${c.name}: ${partial.length} vs ${drawnWhole.length} bytes`);
    }
  } finally {
    await whole.close();
  }
});
