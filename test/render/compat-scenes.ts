// Sources of issue 37's compatibility cases, shared by the render tests and bench/glyphs.ts: a page of ordinary text
// (many text.glyph lines in one frame) and round 1's glyph bomb (one huge string).

const WORDS =
  'the quick brown fox jumps over a lazy dog while five wizards box and pack my jug with liquor made of sixteen ' +
  'kinds of grain; meanwhile, at 7:45 pm, Zoe asked: "Which of the 23 bells rang twice?" and nobody knew.';

/** n characters of ordinary text (letters, spaces, punctuation, digits), cut into `lines` lines. */
export function pageText(n: number, lines: number): string[] {
  let all = '';
  while (all.length < n) all += WORDS + ' ';
  all = all.slice(0, n);
  const per = Math.ceil(n / lines);
  const out: string[] = [];
  for (let i = 0; i < n; i += per) out.push(all.slice(i, i + per));
  return out;
}

/**
 * A 1920x1080 page of n characters in 50 lines of 16 px dark text on a light background, each line its own
 * text.glyph, all in one render3d (one frame, every line drawn).
 */
export function longTextScene(n: number, lines = 50): string {
  const rows = pageText(n, lines)
    .map((t, i) => `    line("${t.replace(/"/g, "'")}", ${i})`)
    .join(',\n');
  return `runner "0.0.13";
use std.shapes.*;
use std.mesh3d.*;
use std.text;
use std.scene3d.*;
use std.lighting.*;
scene page() -> Frame {
  let line = |s: String, row: Number, size: Length = 16px| -> Solid {
    extrude(text.glyph(s, size: size), depth: 2px)
      .material(fill: #1d3557, roughness: 1.0)
      .translate(y: (490 - row * 20) * 1px)
  };
  compose [
    rect(width: 1920px, height: 1080px, fill: #f1faee),
    render3d(compose [
${rows}
    ], lights: [ambient(1.0)])
  ]
}
`;
}

/** Round 1's glyph bomb (test/server/durability/oversized.test.ts): one string of n characters, 20 px, depth 4 px. */
export function glyphBombScene(n: number): string {
  return `runner "0.0.3";
use std.shapes.*;
use std.mesh3d.*;
use std.text;
use std.scene3d.*;
scene words() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #fdf0d5);
  compose [bg, render3d(extrude(text.glyph("${'x'.repeat(n)}", size: 20px), depth: 4px))]
}
`;
}
