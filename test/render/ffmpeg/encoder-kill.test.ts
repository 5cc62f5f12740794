// The video encoder when its ffmpeg is SIGKILLed at different moments: the next write throws (never a silent drop
// of frames into a dead pipe, which would keep a job "rendering" until its time limit).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VideoEncoder } from '../../../src/render/ffmpeg/video.js';

test(
  'ffmpeg killed mid-stream: write() fails within a second, at any point of the stream',
  { timeout: 60_000 },
  async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cmrender-enc-'));
    try {
      for (let round = 0; round < 6; round++) {
        const w = 64;
        const h = 64;
        const enc = new VideoEncoder({ width: w, height: h, fps: 60, outPath: join(dir, `r${round}.mp4`) });
        const frame = new Uint8Array((w * h * 3) / 2);
        const pid = (enc as unknown as { proc: { pid: number } }).proc.pid;
        let killedAt = 0;
        const killer = setTimeout(
          () => {
            killedAt = Date.now();
            process.kill(pid, 'SIGKILL');
          },
          150 + round * 70,
        );
        let frames = 0;
        const end = Date.now() + 10_000;
        const err = await (async () => {
          try {
            while (Date.now() < end) {
              await enc.write(frame);
              frames++;
              await new Promise((r) => setTimeout(r, 2));
            }
            return null;
          } catch (e) {
            return e as Error;
          }
        })();
        clearTimeout(killer);
        assert.ok(err, `round ${round}: ${frames} frames written and no error after the kill`);
        assert.match(err.message, /^ffmpeg/);
        assert.ok(
          killedAt > 0 && Date.now() - killedAt < 1000,
          `round ${round}: failed ${Date.now() - killedAt} ms after the kill`,
        );
        await assert.rejects(enc.finish(), /ffmpeg exited/);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
);
