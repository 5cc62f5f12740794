// The warm browser's pool: a start loads startPages drawing pages, and the pool grows toward poolSize only when jobs
// hold more pages at once (a video's second page), keeping that size afterwards (a page replaced after a failure
// comes back) and never more.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WarmBrowser } from '../../../src/render/page/warm-browser.js';
import { defaultChromiumPath } from '../../../src/render/chromium.js';
import { silentLog } from '../../helpers/app.js';

test(
  'a start warms startPages; a job holding two pages grows the pool to poolSize, which it keeps and never passes',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 2, startPages: 1 });
    try {
      await wb.start();
      // refill() settles once the warming loop has the pool at the size it wants
      await wb.refill();
      assert.equal(wb.idleCount, 1, 'a start warms one page');

      // a video takes the warm page and asks for a second: it is warmed then, and both come back to the pool
      const a = await wb.acquire();
      const b = await wb.acquire();
      assert.notEqual(a, b);
      assert.equal(await b.page.evaluate('typeof window.__cmrDraw'), 'function', 'the second page is a drawing page');
      wb.release(a, true);
      wb.release(b, true);
      assert.equal(wb.idleCount, 2);

      // a page that failed is closed and replaced: the pool keeps the two it grew to (and the refill() on a full pool
      // above left the warming loop able to run again)
      const c = await wb.acquire();
      wb.release(c, false);
      await wb.refill();
      assert.equal(wb.idleCount, 2, 'the failed page was replaced');

      // three pages held at once: the third is made for the job, and the pool still keeps two
      const held = [await wb.acquire(), await wb.acquire(), await wb.acquire()];
      assert.equal(new Set(held).size, 3);
      for (const p of held) wb.release(p, true);
      assert.equal(wb.idleCount, 2, 'never more than poolSize');
      await wb.refill();
      assert.equal(wb.idleCount, 2);
    } finally {
      await wb.close();
    }
  },
);
