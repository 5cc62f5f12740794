// A leased drawing page's failures carry their code from where they happen (src/render/page/viewer-page.ts and the
// page half of a draw, draw-script.ts): an allocation past the page's heap while a frame is read back comes back as
// the page's own draw_too_large (out_of_memory for the job), and a page that can no longer answer as page_crashed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WarmBrowser } from '../../../src/render/page/warm-browser.js';
import { defaultChromiumPath } from '../../../src/render/chromium.js';
import { pageFailure, stageFailure } from '../../../src/render/failure-reasons.js';
import { compile } from '../../../src/lang/index.js';
import { silentLog } from '../../helpers/app.js';

const SOURCE = `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame { rect(width: 64px, height: 64px, fill: #ff6a00) }
`;

test(
  'a read back past the heap is draw_too_large; a page that cannot answer is page_crashed',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 1, startPages: 1 });
    try {
      await wb.start();
      const page = await wb.acquire();
      const json = JSON.stringify(compile(SOURCE).program!.sceneAt(0).value);
      assert.equal((await page.load({ width: 64, height: 64, runner: '0.0.3' })).ok, true);
      const drawn = await page.draw(json, 64, 64);
      assert.ok('pixels' in drawn, 'the page draws the frame');

      // the engine refusing the read back's buffer, as a frame too large for the page's heap does
      await page.page.evaluate(() => {
        window.cmViewer.pixels = () => {
          throw new RangeError('Array buffer allocation failed');
        };
      });
      // another value, so the page draws (an equal one would come back unchanged, with nothing read)
      const other = JSON.stringify(compile(SOURCE.replace('#ff6a00', '#00ff00')).program!.sceneAt(0).value);
      const refused = await page.draw(other, 64, 64);
      assert.ok('error' in refused, 'the read back failed as a value, not a rejected call');
      assert.equal(refused.error.code, 'draw_too_large');
      assert.equal(pageFailure(refused.error).code, 'out_of_memory');

      // the page gone under the lease: the call rejects, and leaves as page_crashed
      await page.context.close();
      const gone = await page.draw(json, 64, 64).then(
        () => assert.fail('a closed page drew'),
        (err: unknown) => err,
      );
      assert.equal(stageFailure(gone).code, 'page_crashed');
      wb.release(page, false);
    } finally {
      await wb.close();
    }
  },
);
