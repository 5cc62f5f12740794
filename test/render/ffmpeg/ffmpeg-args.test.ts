// Pins every argument list the ffmpeg builders make (video of every codec, stills, the GIF's two passes, joins) for
// a grid of inputs, recorded from the builders as they were before src/render/ffmpeg was split into its codec table
// (issue 34). The same arguments give the same bytes: a change here changes the files users get, so it must be
// deliberate.
//
// Re-record (only after deciding the change is intended):
//   UPDATE_FFMPEG_ARGS=1 node --import tsx --test test/render/ffmpeg/ffmpeg-args.test.ts
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../../../src/paths.js';
import { VIDEO_CODECS } from '../../../src/contract/outputs.js';
import { encoderArgs, segmentFormat, type EncoderOptions } from '../../../src/render/ffmpeg/video.js';
import { gifEncodeArgs, gifLoopArg, gifPaletteArgs } from '../../../src/render/ffmpeg/gif.js';
import { joinArgs } from '../../../src/render/ffmpeg/join.js';
import { stillArgs } from '../../../src/render/ffmpeg/stills.js';

const PIN_FILE = join(repoRoot, 'test', 'render', 'ffmpeg', 'ffmpeg-args.json');
const UPDATE = process.env.UPDATE_FFMPEG_ARGS === '1';

/** Every builder's arguments for the grid, keyed by a readable name of the input. */
function argumentGrid(): Record<string, string[] | string> {
  const out: Record<string, string[] | string> = {};
  const qualities = [undefined, 0, 19, 20, 40, 60, 100];
  for (const codec of [undefined, ...VIDEO_CODECS])
    for (const quality of qualities)
      for (const transparent of [undefined, true])
        for (const container of [undefined, 'mpegts'] as const)
          for (const encoder of codec === undefined || codec === 'h264'
            ? ([undefined, 'nvenc'] as const)
            : [undefined]) {
            const o: EncoderOptions = {
              width: 320,
              height: 180,
              fps: 30,
              outPath: '/o/out',
              codec,
              quality,
              transparent,
              container,
              encoder,
            };
            out[`video ${JSON.stringify(o)}`] = encoderArgs(o);
          }
  // the overrides a caller may pass
  for (const codec of [undefined, ...VIDEO_CODECS]) {
    const base = { width: 1921, height: 1081, fps: 24, outPath: "/a b/it's.mp4", codec };
    for (const extra of [
      { crf: 7 },
      { preset: 'slow' },
      { crf: 0, preset: 'ultrafast', quality: 3 },
      { encoder: 'nvenc' as const, crf: 30 },
    ]) {
      const o: EncoderOptions = { ...base, ...extra };
      out[`video ${JSON.stringify(o)}`] = encoderArgs(o);
    }
  }
  for (const fps of [1, 23.976, 60]) out[`video fps ${fps}`] = encoderArgs({ width: 2, height: 2, fps, outPath: 'x' });
  for (const format of ['jpeg', 'webp'] as const)
    for (const quality of [undefined, 0, 1, 50, 65, 90, 99, 100]) {
      const o = { width: 640, height: 360, format, quality, outPath: '/o/still' };
      out[`still ${JSON.stringify(o)}`] = stillArgs(o);
    }
  for (const loop of [undefined, 0, 1, 2, 5])
    for (const colors of [undefined, 2, 16, 256]) {
      const o = { width: 480, height: 270, fps: 15, loop, colors };
      out[`gif palette ${JSON.stringify(o)}`] = gifPaletteArgs(o, '/o/palette.png');
      out[`gif encode ${JSON.stringify(o)}`] = gifEncodeArgs(o, '/o/palette.png', '/o/out.gif');
      out[`gif loop ${String(loop)}`] = gifLoopArg(loop);
    }
  for (const codec of [undefined, ...VIDEO_CODECS]) {
    out[`join ${String(codec)}`] = joinArgs('/o/joined', codec);
    out[`segment format ${String(codec)}`] = segmentFormat(codec);
  }
  return out;
}

test('every ffmpeg argument list is the pinned one (video of every codec, stills, GIF passes, joins)', () => {
  const got = argumentGrid();
  // one line per argument list, so a change reads as a one-line diff
  const lines = Object.entries(got).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  if (UPDATE) writeFileSync(PIN_FILE, `{\n${lines.join(',\n')}\n}\n`);
  const want = JSON.parse(readFileSync(PIN_FILE, 'utf8')) as Record<string, string[] | string>;
  assert.deepEqual(Object.keys(got).sort(), Object.keys(want).sort(), 'the grid itself changed');
  for (const k of Object.keys(want)) assert.deepEqual(got[k], want[k], k);
});
