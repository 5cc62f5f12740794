// What several render tests share: a moving scene of our own and decoding a video or GIF back into frames.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import type { PNG } from 'pngjs';

/** A 1 s scene whose white square slides from -400 px to 400 px: every frame differs from the last. */
export const MOVING = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene moving(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -400px, 1s => 400px };
  let bg = rect(width: 1920px, height: 1080px, fill: #000000);
  let fg = rect(width: 200px, height: 200px, fill: #ffffff).translate(x: x);
  compose [bg, fg]
}
`;

// Layers that overlap in depth order: a square slides over one static rect and under another, while a third
// rect and a circle stay put, so the damaged rectangle holds unchanged layers above and below the moving one.
export const LAYERED = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene layered(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -500px, 1s => 500px };
  compose [
    rect(width: 1920px, height: 1080px, fill: #203040),
    rect(width: 600px, height: 500px, fill: #c04040).translate(x: -300px),
    rect(width: 220px, height: 220px, fill: #f0f0f0).translate(x: x, y: 40px),
    circle(radius: 160px, fill: #40c040).translate(x: 300px),
    rect(width: 300px, height: 80px, fill: #4040c0).translate(x: 500px, y: -300px),
  ]
}
`;

// A 3D glyph whose key light brightens: every lit pixel changes, so no frame may be drawn in part.
export const LIGHT_RAMP = `runner "0.0.3";
use std.shapes.*;
use std.mesh3d.*;
use std.text;
use std.lighting.*;
use std.scene3d.*;
use std.anim.*;
scene ramp(duration: Duration = 1s) -> Frame {
  let k = animate { 0s => 0.4, 1s => 1.6 };
  let glyph = extrude(text.glyph("A", font: "Inter Bold"), depth: 20px).rotate(y: 20deg);
  compose [rect(width: 1920px, height: 1080px, fill: #101010),
           render3d(glyph, lights: [ambient(0.3), directional(from: vec3(1, 2, 3), intensity: k)])]
}
`;

// A glyph turning and pulsing under fixed lights, beside a still 2D mark.
export const SPIN = LIGHT_RAMP.replace('let k = animate { 0s => 0.4, 1s => 1.6 };', 'let k = 1.2;')
  .replace(
    '.rotate(y: 20deg)',
    '.rotate(y: animate { 0s => 0deg, 1s => 90deg }).scale(animate { 0s => 1.0, 1s => 1.2 })',
  )
  .replace('compose [', 'compose [circle(radius: 40px, fill: #ffffff).translate(x: 700px),');

/** Every frame of a video or GIF as RGB24, decoded by ffmpeg. */
export function decodeFrames(path: string, w: number, h: number): Buffer[] {
  const r = spawnSync('ffmpeg', ['-v', 'error', '-i', path, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    maxBuffer: 1 << 30,
  });
  assert.equal(r.status, 0, String(r.stderr));
  const size = w * h * 3;
  const out: Buffer[] = [];
  for (let o = 0; o + size <= r.stdout.length; o += size) out.push(r.stdout.subarray(o, o + size));
  return out;
}

/**
 * A 10 s scene for chunked videos: the square slides for 4 s, then holds still, so at 13 fps (130 frames, chunks of
 * 60) the first cut falls inside the movement-free run and the second does too: repeats must not cross a cut.
 */
export const LONG_SLIDE = `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene slide(duration: Duration = 10s) -> Frame {
  let x = animate { 0s => -400px, 4s => 400px };
  let bg = rect(width: 1920px, height: 1080px, fill: #102030);
  let fg = rect(width: 200px, height: 200px, fill: #ffffff).translate(x: x);
  compose [bg, fg]
}
`;

/** Mean absolute difference of two RGB24 pictures (0..255). */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  assert.equal(a.length, b.length);
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i]! - b[i]!);
  return sum / a.length;
}

/** PSNR in dB of a decoded RGB24 frame against a PNG of the same size (99 when identical). */
export function psnr(rgb: Buffer, png: PNG): number {
  let se = 0;
  for (let p = 0, q = 0; p < rgb.length; p += 3, q += 4) {
    for (let c = 0; c < 3; c++) {
      const d = rgb[p + c] - png.data[q + c];
      se += d * d;
    }
  }
  const mse = se / rgb.length;
  return mse === 0 ? 99 : 10 * Math.log10((255 * 255) / mse);
}
