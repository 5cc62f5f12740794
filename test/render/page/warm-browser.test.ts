// The warm browser's close() when a page on its way never comes up: its renderer process hangs (stopped here with
// SIGSTOP, as a wedged or swapped-out renderer would be). close() must not wait on it for ever, nor for Playwright's
// 30 s navigation time-out, nor for Chromium's own shutdown (which waits about 30 s on a renderer that does not
// answer): it closes the browser under the page, and kills what does not go, within seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WarmBrowser } from '../../../src/render/page/warm-browser.js';
import { defaultChromiumPath } from '../../../src/render/chromium.js';
import { silentLog } from '../../helpers/app.js';
import { descendants } from '../../server/durability/helpers/service.js';
import { until } from '../../helpers/until.js';

const renderers = () => descendants(process.pid).filter((p) => p.cmdline.includes('--type=renderer'));

function signalAll(pids: number[], signal: NodeJS.Signals) {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

test(
  'close() while a page warms in a hung renderer: it returns, the browser and its processes gone',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 2 });
    // start() resolves with one page warm; the second is on its way
    await wb.start();
    const stopped = new Set<number>();
    const stopNew = () => {
      const fresh = renderers()
        .map((p) => p.pid)
        .filter((pid) => !stopped.has(pid));
      signalAll(fresh, 'SIGSTOP');
      for (const pid of fresh) stopped.add(pid);
    };
    stopNew();
    // a renderer the second page starts after this moment is stopped as it appears
    const keepStopping = setInterval(stopNew, 10);
    try {
      assert.ok(stopped.size >= 1, 'found the pages’ renderer processes');
      assert.equal(wb.idleCount, 1, 'one page warm, the other on its way');
      // before, this never returned (the test's time-out says so); its own waits are bounded at 5 s each
      await wb.close();
      assert.equal(wb.connected, false);
      const chromium = () => descendants(process.pid).filter((p) => /chrom/i.test(p.comm));
      // the stopped renderers too: they were killed, not left stopped for ever (an orphan is reaped a moment later)
      await until('no Chromium process is left', () => chromium().length === 0, 30_000);
    } finally {
      clearInterval(keepStopping);
      // only processes still ours: a pid of one killed above may already name another process (pid_max is small)
      signalAll(
        renderers()
          .map((p) => p.pid)
          .filter((pid) => stopped.has(pid)),
        'SIGKILL',
      );
    }
  },
);
