// vectorizeImage: PNG/JPEG bytes → centreline SVG, as /v1/vectorize and the CLI will call it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import { PNG } from 'pngjs';
import jpeg from 'jpeg-js';
import { vectorizeImage } from '../../src/export/vectorize.js';
import { svgToGlb } from '../../src/export/mesh.js';
import { ExportError, type ExportErrorCode } from '../../src/export/errors.js';
import { EXPORT_LIMITS } from '../../src/export/limits.js';
import { prng } from '../helpers/prng.js';
import {
  dilate,
  drawPng,
  errorsOf,
  HANDDRAWN_JPG,
  iou,
  SKIP_CORPUS,
  strokeMask,
  svgPolylines,
  validate,
  type Pt,
} from './helpers.js';

const isCode = (code: ExportErrorCode) => (e: unknown) => {
  assert.ok(e instanceof ExportError, `an ExportError, got ${e}`);
  assert.equal(e.code, code, e.message);
  return true;
};

// A line drawing of our own, 320 × 240, strokes 9 px wide: a bar, a diagonal and a half circle, far enough
// apart that neither bridge (2 px) nor stitch (6 px) joins them.
const W = 320,
  H = 240,
  STROKE = 9;
const arc: Pt[] = [];
for (let k = 0; k <= 32; k++) {
  const a = Math.PI * (k / 32);
  arc.push([220 + 60 * Math.cos(a), 150 + 60 * Math.sin(a)]);
}
const DRAWING: Pt[][] = [
  [
    [30, 40],
    [290, 40],
  ],
  [
    [40, 90],
    [140, 210],
  ],
  arc,
];
const drawn = drawPng(DRAWING, STROKE, W, H);

/** Coverage agreement: the SVG's polylines stroked back at the same size vs the drawing, 2 px dilation each. */
function coverage(svg: string, mask: Uint8Array): number {
  const back = strokeMask(svgPolylines(svg).lines, STROKE, W, H);
  return iou(dilate(back, W, H, 2), dilate(mask, W, H, 2));
}

test('a PNG line drawing traces to centrelines that cover the strokes again (IoU ≥ 0.9)', () => {
  const svg = vectorizeImage(drawn.png, { strokeWidth: STROKE });
  const { lines } = svgPolylines(svg);
  assert.equal(lines.length, 3, `three strokes, got ${lines.length}`);
  const score = coverage(svg, drawn.mask);
  assert.ok(score >= 0.9, `IoU ${score.toFixed(3)}`);
});

test("the SVG has one uniform stroke width, no fill, the image's own viewBox", () => {
  const svg = vectorizeImage(drawn.png, { strokeWidth: 7.5 });
  assert.deepEqual(svgPolylines(svg).strokeWidths, ['7.5'], 'one stroke-width, on the root');
  assert.match(svg, /^<svg [^>]*viewBox="0 0 320 240"[^>]*fill="none"[^>]*>/);
  assert.equal((svg.match(/<path /g) ?? []).length, 1);
});

test('a JPEG of the same drawing traces as well', () => {
  const rgba = PNG.sync.read(drawn.png);
  const jpg = jpeg.encode({ width: W, height: H, data: rgba.data }, 85).data;
  const score = coverage(vectorizeImage(jpg, { strokeWidth: STROKE }), drawn.mask);
  assert.ok(score >= 0.9, `IoU ${score.toFixed(3)}`);
});

test('svgToGlb accepts the vectorize output: 0 validator errors', async () => {
  const glb = svgToGlb(vectorizeImage(drawn.png), { depth: 10, size: 50, round: 1 });
  const r = await validate(glb);
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
});

test("corpus: the gallery's hand-drawn image (handdrawn.cm) becomes a valid .glb", { skip: SKIP_CORPUS }, async () => {
  // the parameters handdrawn.cm gives vectorize(...)
  const svg = vectorizeImage(readFileSync(HANDDRAWN_JPG), { strokeWidth: 8, simplify: 2, bridge: 5, stitch: 110 });
  assert.ok(svgPolylines(svg).lines.length >= 1);
  const r = await validate(svgToGlb(svg, { depth: 70, size: 780, round: 10 }));
  assert.equal(r.issues.numErrors, 0, errorsOf(r));
});

test('bytes that are not PNG or JPEG → not_an_image', () => {
  const cases: [string, Buffer][] = [
    ['garbage', Buffer.from('definitely not an image, just text')],
    ['empty', Buffer.alloc(0)],
    ['GIF', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1')],
    ['WebP', Buffer.concat([Buffer.from('RIFF\x1a\x00\x00\x00WEBPVP8 ', 'latin1'), Buffer.alloc(16)])],
    ['SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0 L9 9" stroke="black"/></svg>')],
  ];
  for (const [name, bytes] of cases) assert.throws(() => vectorizeImage(bytes), isCode('not_an_image'), name);
});

test('a PNG or JPEG signature with broken data → bad_image', () => {
  assert.throws(() => vectorizeImage(drawn.png.subarray(0, 60)), isCode('bad_image'), 'truncated PNG');
  const flipped = Buffer.from(drawn.png);
  flipped[flipped.length - 30] ^= 0xff;
  assert.throws(() => vectorizeImage(flipped), isCode('bad_image'), 'PNG with a bad CRC');
  assert.throws(
    () => vectorizeImage(Buffer.from([0xff, 0xd8, 0xff, 0xd9])),
    isCode('bad_image'),
    'JPEG without a frame',
  );
});

test('a blank page → empty_drawing', () => {
  const blank = drawPng([], STROKE, 64, 64).png;
  assert.throws(() => vectorizeImage(blank), isCode('empty_drawing'));
});

test('parameters out of range → bad_params', () => {
  for (const p of [
    { threshold: 1.5 },
    { threshold: -0.1 },
    { strokeWidth: 0 },
    { bridge: -1 },
    { maxDim: 0 },
    { maxDim: EXPORT_LIMITS.vectorize.maxDimMax + 1 },
    { simplify: Number.NaN },
  ]) {
    assert.throws(() => vectorizeImage(drawn.png, p), isCode('bad_params'), JSON.stringify(p));
  }
});

// ---- The pixel cap -------------------------------------------------------------------------------------

/** A PNG that is only a signature and an IHDR of the given size: its pixels would be gigabytes. */
function pngHeaderOnly(w: number, h: number): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  const body = Buffer.concat([Buffer.from('IHDR'), ihdr]);
  const len = Buffer.alloc(4);
  len.writeUInt32BE(13);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body) >>> 0);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), len, body, crc]);
}

/** A JPEG that is only SOI, a baseline frame header of the given size, and EOI. */
function jpegHeaderOnly(w: number, h: number): Buffer {
  return Buffer.from([
    0xff,
    0xd8,
    0xff,
    0xc0,
    0,
    17,
    8,
    h >> 8,
    h & 255,
    w >> 8,
    w & 255,
    3,
    1,
    0x22,
    0,
    2,
    0x11,
    1,
    3,
    0x11,
    1,
    0xff,
    0xd9,
  ]);
}

test('pixel cap: an image of exactly the cap decodes, one pixel more is refused (PNG and JPEG)', () => {
  const cap = W * H;
  assert.ok(vectorizeImage(drawn.png, {}, { maxImagePixels: cap }).startsWith('<svg'));
  assert.throws(() => vectorizeImage(drawn.png, {}, { maxImagePixels: cap - 1 }), isCode('image_too_large'));
  const jpg = jpeg.encode({ width: W, height: H, data: PNG.sync.read(drawn.png).data }, 85).data;
  assert.ok(vectorizeImage(jpg, {}, { maxImagePixels: cap }).startsWith('<svg'));
  assert.throws(() => vectorizeImage(jpg, {}, { maxImagePixels: cap - 1 }), isCode('image_too_large'));
});

test('pixel cap (default 40 MP) is read from the header: at the cap the decoder runs, past it nothing is decoded', () => {
  const cap = EXPORT_LIMITS.maxImagePixels;
  assert.equal(cap, 40_000_000);
  // exactly 40 MP: passes the cap, then fails in the decoder because there is no pixel data at all
  assert.throws(() => vectorizeImage(pngHeaderOnly(cap, 1)), isCode('bad_image'));
  assert.throws(() => vectorizeImage(pngHeaderOnly(cap + 1, 1)), isCode('image_too_large'));
  assert.throws(() => vectorizeImage(pngHeaderOnly(65535, 65535)), isCode('image_too_large'));
  assert.throws(() => vectorizeImage(jpegHeaderOnly(8000, 5001)), isCode('image_too_large'));
  assert.throws(() => vectorizeImage(jpegHeaderOnly(65535, 65535)), isCode('image_too_large'));
});

test('damaged PNG and JPEG bytes (random bytes overwritten, files cut short): an SVG or an ExportError, nothing else', () => {
  const small = drawPng(
    [
      [
        [10, 10],
        [90, 60],
      ],
      [
        [20, 70],
        [80, 20],
      ],
    ],
    6,
    100,
    80,
  ).png;
  const jpg = jpeg.encode({ width: 100, height: 80, data: PNG.sync.read(small).data }, 80).data;
  const rnd = prng(1);
  for (const [name, base] of [
    ['PNG', small],
    ['JPEG', jpg],
  ] as const) {
    for (let run = 0; run < 150; run++) {
      const b = Buffer.from(base);
      for (let k = 1 + Math.floor(rnd() * 8); k > 0; k--) b[Math.floor(rnd() * b.length)] = Math.floor(rnd() * 256);
      const bytes = rnd() < 0.3 ? b.subarray(0, Math.floor(rnd() * b.length)) : b;
      try {
        assert.match(vectorizeImage(bytes), /^<svg /);
      } catch (e) {
        assert.ok(e instanceof ExportError, `${name} run ${run}: ${e}`);
      }
    }
  }
});
