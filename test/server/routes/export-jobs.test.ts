// POST /v1/mesh and POST /v1/vectorize through the real service: the job lifecycle, the export worker threads,
// the Khronos glTF validator on the meshes, and every limit of the two routes at and just past its edge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startApp, exportRenderer, multipart, ownExample, type TestApp } from '../../helpers/app.js';
import { post, waitJob, runJob } from '../../helpers/job-client.js';
import {
  validate,
  errorsOf,
  readGlb,
  extent,
  drawPng,
  corpusSvgs,
  strokeMask,
  svgPolylines,
  iou,
  dilate,
  SKIP_CORPUS,
  HANDDRAWN_JPG,
  type Pt,
} from '../../export/helpers.js';
import { encodePng } from '../../../src/render/png.js';
import { LIMITS } from '../../../src/contract/limits.js';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: exportRenderer() });
});
after(async () => {
  await t.close();
});

/** The SVG written inside our own svg() example. */
const MARK_SVG = /<svg[\s>][\s\S]*?<\/svg>/.exec(ownExample('svg-mark.cm'))![0];

async function output(url: string): Promise<{ type: string; bytes: Buffer }> {
  const r = await t.app.inject({ url });
  assert.equal(r.statusCode, 200);
  return { type: String(r.headers['content-type']), bytes: r.rawPayload };
}

async function meshOf(svg: string, params: Record<string, number> = {}) {
  const r = await runJob(t.app, '/v1/mesh', { source: svg, params });
  assert.equal(r.statusCode, 200, r.body);
  const job = r.json();
  assert.equal(job.status, 'ready');
  assert.equal(job.kind, 'mesh');
  assert.equal(job.mime, 'model/gltf-binary');
  assert.match(job.url, /^\/v1\/outputs\/[0-9a-f-]{36}\.glb$/);
  const out = await output(job.url);
  assert.equal(out.type, 'model/gltf-binary');
  return { job, glb: out.bytes };
}

/** A line drawing of known strokes: a square outline, a diagonal and a zig-zag, 6 px black on white. */
const LINES: Pt[][] = [
  [
    [40, 40],
    [200, 40],
    [200, 200],
    [40, 200],
    [40, 40],
  ],
  [
    [60, 60],
    [180, 180],
  ],
  [
    [230, 60],
    [260, 120],
    [290, 60],
    [320, 120],
  ],
];
const drawing = () => drawPng(LINES, 6, 360, 240).png;

/** The SVG's polylines stroked back at the drawing's size against the drawing's ink, 2 px dilation each. */
function coverage(svg: string, stroke: number): number {
  const { mask } = drawPng(LINES, 6, 360, 240);
  const back = strokeMask(svgPolylines(svg).lines, stroke, 360, 240);
  return iou(dilate(back, 360, 240, 2), dilate(mask, 360, 240, 2));
}

test('POST /v1/mesh: 202 kind mesh, then a .glb the Khronos validator accepts, size tall and depth deep (1%)', async () => {
  const r = await post(t.app, '/v1/mesh', { source: MARK_SVG, params: { depth: 7, size: 42, round: 0 } });
  assert.equal(r.statusCode, 202, r.body);
  assert.equal(r.json().kind, 'mesh');
  const pending = await t.app.inject({ url: `/v1/jobs/${r.json().job_id}` });
  if (pending.json().status === 'pending') {
    assert.equal(typeof pending.json().progress, 'number');
    assert.equal(typeof pending.json().queue_position, 'number');
  }
  const done = await waitJob(t.app, r.json().job_id);
  const out = await output(done.json().url);
  const report = await validate(out.bytes);
  assert.equal(report.issues.numErrors, 0, errorsOf(report));
  const box = extent(readGlb(out.bytes).positions);
  assert.ok(Math.abs(box.y - 42) <= 0.42, `height ${box.y}`);
  assert.ok(Math.abs(box.z - 7) <= 0.07, `depth ${box.z}`);
  assert.equal(done.json().height, 42);
});

test('POST /v1/mesh: defaults are depth 20 and size 100; round makes a valid bevelled solid', async () => {
  const { glb } = await meshOf(MARK_SVG);
  const box = extent(readGlb(glb).positions);
  assert.ok(Math.abs(box.y - 100) <= 1 && Math.abs(box.z - 20) <= 0.2, JSON.stringify(box));
  const bevelled = await meshOf(MARK_SVG, { round: 3 });
  const report = await validate(bevelled.glb);
  assert.equal(report.issues.numErrors, 0, errorsOf(report));
});

test('POST /v1/mesh: every SVG of the examples gives a valid glTF', { skip: SKIP_CORPUS }, async () => {
  const svgs = corpusSvgs();
  assert.ok(svgs.length > 0);
  for (const { name, svg } of svgs) {
    const { glb } = await meshOf(svg, { size: 50, depth: 5 });
    const report = await validate(glb);
    assert.equal(report.issues.numErrors, 0, `${name}: ${errorsOf(report)}`);
  }
});

test('POST /v1/mesh: a malformed, an empty or a non-SVG source ends the job in error with a clear message and code', async () => {
  const cases = [
    { source: '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L10 0 L10 10 Z"', code: 'bad_svg', text: /SVG/ },
    {
      source: '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"></svg>',
      code: 'empty_svg',
      text: /nothing to extrude/,
    },
    { source: 'hello, not an svg', code: 'bad_svg', text: /not an SVG document/ },
  ];
  for (const c of cases) {
    const r = await runJob(t.app, '/v1/mesh', { source: c.source });
    assert.equal(r.statusCode, 500, c.source);
    assert.equal(r.json().status, 'error');
    assert.equal(r.json().code, c.code, r.body);
    assert.match(r.json().message, c.text);
  }
  // the worker survived every refusal
  await meshOf(MARK_SVG);
});

test('POST /v1/mesh: the SVG may be 64 KiB of UTF-8, not a byte more (multi-byte characters count as their bytes)', async () => {
  const max = LIMITS.mesh.sourceMaxBytes;
  const pad = (n: number, ch = 'x') => MARK_SVG.replace('</svg>', `<!--${ch.repeat(n)}--></svg>`);
  const base = Buffer.byteLength(pad(0));
  const atEdge = pad(max - base);
  assert.equal(Buffer.byteLength(atEdge), max);
  const ok = await post(t.app, '/v1/mesh', { source: atEdge });
  assert.equal(ok.statusCode, 202, ok.body);
  assert.equal((await waitJob(t.app, ok.json().job_id)).json().status, 'ready');
  const over = await post(t.app, '/v1/mesh', { source: pad(max - base + 1) });
  assert.equal(over.statusCode, 400);
  assert.equal(over.json().code, 'source_too_large');
  // 'é' is 2 bytes: under 64 Ki characters but over 64 KiB
  const wide = pad((max - base) / 2 + 1, 'é');
  assert.ok(wide.length < max && Buffer.byteLength(wide) > max);
  const w = await post(t.app, '/v1/mesh', { source: wide });
  assert.equal(w.statusCode, 400);
  assert.equal(w.json().code, 'source_too_large');
  const empty = await post(t.app, '/v1/mesh', { source: '' });
  assert.equal(empty.json().code, 'missing_source');
});

test('POST /v1/mesh: depth and size above 0, round 0 or more (at and just past each edge)', async () => {
  const cases: [Record<string, unknown>, number][] = [
    [{ depth: 0 }, 400],
    [{ depth: 0.001 }, 202],
    [{ size: 0 }, 400],
    [{ size: 0.001 }, 202],
    [{ round: -0.001 }, 400],
    [{ round: 0 }, 202],
    [{ depth: '5' }, 400],
  ];
  for (const [params, status] of cases) {
    const r = await post(t.app, '/v1/mesh', { source: MARK_SVG, params });
    assert.equal(r.statusCode, status, `${JSON.stringify(params)}: ${r.body}`);
    if (status === 400) assert.equal(r.json().code, 'invalid_params');
    else assert.equal((await waitJob(t.app, r.json().job_id)).json().status, 'ready');
  }
});

test('POST /v1/vectorize: an inline line drawing gives a centreline SVG covering its strokes (IoU ≥ 0.9) that POST /v1/mesh turns into a valid glb', async () => {
  const r = await runJob(t.app, '/v1/vectorize', { image: drawing().toString('base64'), params: { strokeWidth: 6 } });
  assert.equal(r.statusCode, 200, r.body);
  const job = r.json();
  assert.equal(job.kind, 'vectorize');
  assert.equal(job.mime, 'image/svg+xml');
  assert.match(job.url, /\.svg$/);
  assert.deepEqual([job.width, job.height], [360, 240]);
  const out = await output(job.url);
  assert.match(out.type, /^image\/svg\+xml/);
  const svg = out.bytes.toString('utf8');
  assert.match(svg, /^<svg[\s\S]*stroke-width="6"[\s\S]*<\/svg>\s*$/);
  const score = coverage(svg, 6);
  assert.ok(score >= 0.9, `coverage IoU ${score.toFixed(3)}`);
  const { glb } = await meshOf(svg, { depth: 4, size: 80 });
  const report = await validate(glb);
  assert.equal(report.issues.numErrors, 0, errorsOf(report));
});

test('POST /v1/vectorize: source + assets names an uploaded image; a path that is not in assets is 400 unknown_asset', async () => {
  const up = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'sketch.png', type: 'image/png', data: drawing() }]),
  });
  assert.equal(up.statusCode, 200, up.body);
  const key = up.json().assets['sketch.png'];
  const r = await runJob(t.app, '/v1/vectorize', { source: '/img/sketch.png', assets: { '/img/sketch.png': key } });
  assert.equal(r.json().status, 'ready', r.body);
  const missing = await post(t.app, '/v1/vectorize', { source: '/img/other.png', assets: { '/img/sketch.png': key } });
  assert.equal(missing.statusCode, 400);
  assert.equal(missing.json().code, 'unknown_asset');
  // an uploaded SVG is an image, but not one the tracer reads
  const svgUp = await t.app.inject({
    method: 'POST',
    url: '/v1/assets',
    ...multipart([{ name: 'f', filename: 'm.svg', type: 'image/svg+xml', data: MARK_SVG }]),
  });
  const svgKey = svgUp.json().assets['m.svg'];
  const notRaster = await post(t.app, '/v1/vectorize', { source: '/m.svg', assets: { '/m.svg': svgKey } });
  assert.equal(notRaster.statusCode, 400);
  assert.equal(notRaster.json().code, 'not_an_image');
});

test('POST /v1/vectorize: bytes that are not a PNG or JPEG are 400 not_an_image; the body needs exactly one input', async () => {
  const gif = Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAACAkQBADs=', 'base64');
  for (const bytes of [Buffer.from('just some text, not an image'), gif, Buffer.from(MARK_SVG)]) {
    const r = await post(t.app, '/v1/vectorize', { image: bytes.toString('base64') });
    assert.equal(r.statusCode, 400, r.body);
    assert.equal(r.json().code, 'not_an_image');
    assert.match(r.json().error, /PNG or JPEG/);
  }
  const bad64 = await post(t.app, '/v1/vectorize', { image: 'not base64!' });
  assert.equal(bad64.json().code, 'invalid_image');
  const neither = await post(t.app, '/v1/vectorize', { params: {} });
  assert.equal(neither.json().code, 'missing_source');
  const both = await post(t.app, '/v1/vectorize', { source: '/a.png', image: drawing().toString('base64') });
  assert.equal(both.json().code, 'missing_source');
});

test('POST /v1/vectorize: the inline image may be 12 MiB of base64, not a character more', async () => {
  const max = LIMITS.vectorize.imageMaxBase64Chars;
  // a PNG signature and zeros: accepted at the door (it is judged by its bytes), the job then fails to decode it
  const bytes = Buffer.alloc((max / 4) * 3);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes);
  const atEdge = bytes.toString('base64');
  assert.equal(atEdge.length, max);
  const ok = await post(t.app, '/v1/vectorize', { image: atEdge });
  assert.equal(ok.statusCode, 202, ok.body);
  const ended = await waitJob(t.app, ok.json().job_id);
  assert.equal(ended.json().status, 'error');
  assert.equal(ended.json().code, 'bad_image');
  const over = await post(t.app, '/v1/vectorize', { image: atEdge + 'AAAA' });
  assert.equal(over.statusCode, 400);
  assert.equal(over.json().code, 'image_too_large');
});

test('POST /v1/vectorize: parameter ranges at and just past each edge', async () => {
  const R = LIMITS.vectorize.ranges;
  const image = drawing().toString('base64');
  const cases: [Record<string, number>, number][] = [
    [{ threshold: 1 }, 202],
    [{ threshold: 1.001 }, 400],
    [{ threshold: 0 }, 202],
    [{ threshold: -0.001 }, 400],
    [{ maxDim: R.maxDimMax }, 202],
    [{ maxDim: R.maxDimMax + 1 }, 400],
    [{ maxDim: 1 }, 202],
    [{ maxDim: 0.999 }, 400],
    [{ strokeWidth: R.strokeWidthMax }, 202],
    [{ strokeWidth: R.strokeWidthMax + 0.001 }, 400],
    [{ strokeWidth: 0 }, 400],
    [{ simplify: R.simplifyMax }, 202],
    [{ simplify: R.simplifyMax + 0.001 }, 400],
    [{ bridge: R.bridgeMax }, 202],
    [{ bridge: R.bridgeMax + 1 }, 400],
    [{ stitch: R.stitchMax }, 202],
    [{ stitch: R.stitchMax + 1 }, 400],
  ];
  for (const [params, status] of cases) {
    const r = await post(t.app, '/v1/vectorize', { image, params });
    assert.equal(r.statusCode, status, `${JSON.stringify(params)}: ${r.body}`);
    if (status === 400) assert.equal(r.json().code, 'invalid_params');
    else {
      const end = (await waitJob(t.app, r.json().job_id)).json();
      // threshold 0 counts nothing as ink: a clean refusal, not a crash
      assert.ok(end.status === 'ready' || end.code === 'empty_drawing', JSON.stringify(end));
    }
  }
});

test('POST /v1/vectorize: a blank page ends the job in error empty_drawing', async () => {
  const blank = encodePng(new Uint8Array(64 * 48 * 4).fill(255), 64, 48);
  const r = await runJob(t.app, '/v1/vectorize', { image: blank.toString('base64') });
  assert.equal(r.json().status, 'error');
  assert.equal(r.json().code, 'empty_drawing');
  assert.match(r.json().message, /no line/);
});

test('mesh and vectorize jobs leave no partial file behind', async () => {
  const names = await readdir(join(t.dataDir, 'outputs'));
  assert.deepEqual(
    names.filter((n) => n.endsWith('.tmp')),
    [],
  );
});

test(
  "POST /v1/vectorize: the gallery's hand-drawn image gives an SVG that POST /v1/mesh turns into a valid glb",
  { skip: SKIP_CORPUS },
  async () => {
    const jpg = readFileSync(HANDDRAWN_JPG);
    const r = await runJob(t.app, '/v1/vectorize', { image: jpg.toString('base64') });
    assert.equal(r.json().status, 'ready', r.body);
    const svg = (await output(r.json().url)).bytes.toString('utf8');
    const { glb } = await meshOf(svg, { round: 2 });
    const report = await validate(glb);
    assert.equal(report.issues.numErrors, 0, errorsOf(report));
  },
);
