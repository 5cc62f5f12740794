// Scene arguments on both queue backends (test/helpers/backends.ts: the embedded service, and Redis mode's two API
// processes and a render worker): a frame's args drawn and its view naming the scene and the args on the other API
// process, and a video cut in chunks (separate queue items on Redis) whose every chunk evaluates with the args.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { forEachBackend } from '../../helpers/backends.js';
import { pollJob, postJson } from '../../helpers/job-client.js';
import { LIMITS } from '../../../src/contract/limits.js';

/** A full-frame rectangle of `accent`, which has no default: the scene renders only with args. */
const CARD =
  'runner "0.0.3";\nuse std.shapes.*;\nscene card(accent: Color) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: accent)]\n}\n';

forEachBackend('scene args', {}, (b) => {
  test(`${b.name}: a frame with args is green; the other API process's view names the scene and the args`, async () => {
    const [a, other] = b.apis;
    const r = await postJson(a, '/v1/frame', { source: CARD, params: { width: 64 }, args: { accent: '#00ff00' } });
    assert.equal(r.status, 202, JSON.stringify(r.json));
    const done = await pollJob(other, r.json.job_id);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    assert.equal(done.scene, 'card');
    assert.deepEqual(done.args, { accent: '#00ff00' });
    const png = PNG.sync.read(Buffer.from(await (await fetch(`${other}${done.url}`)).arrayBuffer()));
    const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
    assert.deepEqual([...png.data.subarray(i, i + 3)], [0, 255, 0]);
  });

  test(`${b.name}: a video of two chunks with args: each chunk evaluates with them, green to the last frame`, async () => {
    const [a, other] = b.apis;
    const frames = 2 * LIMITS.videoChunkFrames;
    const r = await postJson(a, '/v1/render', {
      source: CARD,
      params: { width: 64, fps: 10, duration: frames / 10 },
      args: { accent: '#00ff00' },
    });
    assert.equal(r.status, 202, JSON.stringify(r.json));
    const done = await pollJob(other, r.json.job_id);
    assert.equal(done.status, 'ready', JSON.stringify(done));
    const file = join(mkdtempSync(join(tmpdir(), 'args-backend-')), 'v.mp4');
    writeFileSync(file, Buffer.from(await (await fetch(`${other}${done.url}`)).arrayBuffer()));
    const last = spawnSync('ffmpeg', [
      '-v',
      'error',
      '-i',
      file,
      '-vf',
      `select=eq(n\\,${frames - 1})`,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-',
    ]);
    assert.equal(last.status, 0, String(last.stderr));
    const px = last.stdout as Buffer;
    assert.equal(px.length, 64 * 36 * 3, 'the last frame exists');
    const mid = (18 * 64 + 32) * 3;
    assert.ok(px[mid + 1]! > 200 && px[mid]! < 40 && px[mid + 2]! < 40, `green: ${[...px.subarray(mid, mid + 3)]}`);
  });
});
