// The warm browser when a page never comes up: its renderer process hangs (stopped here with SIGSTOP, as a wedged or
// swapped-out renderer would be). Waiting for the page is bounded (warmMs), and close() must not wait on it for
// ever, nor for Playwright's 30 s navigation time-out, nor for Chromium's own shutdown (which waits about 30 s on a
// renderer that does not answer): it closes the browser under the page, and kills what does not go, within seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { WarmBrowser } from '../../../src/render/page/warm-browser.js';
import type { ViewerPage } from '../../../src/render/page/viewer-page.js';
import { JobFailure } from '../../../src/render/renderer-port.js';
import { defaultChromiumPath } from '../../../src/render/chromium.js';
import { silentLog } from '../../helpers/app.js';
import { descendants } from '../../helpers/service-process.js';
import { until } from '../../helpers/until.js';
import { killBrowser } from '../../helpers/kill-browser.js';

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

/** Whether pid is a Chromium renderer stopped by a signal (state T), as hangRenderers leaves one. */
function stoppedRenderer(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return (
      stat.slice(stat.lastIndexOf(')') + 2).startsWith('T') &&
      readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')
    );
  } catch {
    return false; // gone
  }
}

/**
 * Stops every renderer of ours now and each new one as it appears (every 10 ms) until release(), which kills the
 * stopped ones that are still ours (a pid of one killed meanwhile may already name another process: pid_max is small).
 */
function hangRenderers() {
  const stopped = new Set<number>();
  const stopNew = () => {
    const fresh = renderers()
      .map((p) => p.pid)
      .filter((pid) => !stopped.has(pid));
    signalAll(fresh, 'SIGSTOP');
    for (const pid of fresh) stopped.add(pid);
  };
  stopNew();
  const timer = setInterval(stopNew, 10);
  return {
    stopped,
    /** stops no more new renderers; those stopped stay stopped */
    stopWatching() {
      clearInterval(timer);
    },
    release() {
      clearInterval(timer);
      // ours: still a descendant, or orphaned by a killed browser and still a stopped renderer (nothing else is)
      const ours = new Set(renderers().map((p) => p.pid));
      signalAll(
        [...stopped].filter((pid) => ours.has(pid) || stoppedRenderer(pid)),
        'SIGKILL',
      );
    },
  };
}

test(
  'close() while a page warms in a hung renderer: it returns, the browser and its processes gone',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 2 });
    // start() resolves with one page warm; the second is on its way, and its renderer is stopped as it appears
    await wb.start();
    const hung = hangRenderers();
    try {
      assert.ok(hung.stopped.size >= 1, 'found the pages’ renderer processes');
      assert.equal(wb.idleCount, 1, 'one page warm, the other on its way');
      // before, this never returned (the test's time-out says so); its own waits are bounded at 5 s each
      await wb.close();
      assert.equal(wb.connected, false);
      const chromium = () => descendants(process.pid).filter((p) => /chrom/i.test(p.comm));
      // the stopped renderers too: they were killed, not left stopped for ever (an orphan is reaped a moment later)
      await until('no Chromium process is left', () => chromium().length === 0, 30_000);
    } finally {
      hung.release();
    }
  },
);

test(
  'a page that never comes up fails the wait for it after warmMs, not never; once renderers answer, pages come again',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 1, warmMs: 3_000 });
    await wb.start();
    const hung = hangRenderers();
    try {
      // the idle page does not answer its check, so a fresh page is warmed for the job: its renderer is stopped too
      await assert.rejects(wb.acquire(), (err: Error) => {
        assert.ok(err instanceof JobFailure, String(err));
        assert.equal(err.code, 'renderer_unavailable');
        assert.equal(
          err.message,
          'render failed: the renderer did not answer (warming a drawing page took longer than 3 s); retry later',
        );
        return true;
      });
      hung.release();
      // the browser itself answered all along: the next page comes up and runs script
      const p = await wb.acquire();
      assert.equal(await p.page.evaluate('1 + 1'), 2);
      wb.release(p, true);
    } finally {
      hung.release();
      await wb.close();
    }
  },
);

/**
 * Once a page warming in `wb` has its renderer stopped (`hung`), kills the browser; the page `next` hands over must
 * come from the one browser relaunched after it, and run script.
 */
async function crashWhileWarming(
  wb: WarmBrowser,
  hung: ReturnType<typeof hangRenderers>,
  next: () => Promise<ViewerPage>,
): Promise<void> {
  await until('the warming page’s renderer to be stopped', () => hung.stopped.size >= 1, 30_000);
  hung.stopWatching();
  const launches = wb.launches;
  killBrowser(wb);
  const q = await next();
  assert.equal(wb.launches, launches + 1);
  assert.equal(await q.page.evaluate('1 + 1'), 2);
  wb.release(q, true);
}

test(
  'the browser killed while a page warms in it: the wait for that page ends with the browser, and a job gets its page from the relaunched one',
  { timeout: 120_000 },
  async () => {
    // warmMs far past the test's time-out: only the browser's going can end the wait
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 1, warmMs: 600_000 });
    await wb.start();
    const p = await wb.acquire();
    let hung: ReturnType<typeof hangRenderers> | null = null;
    try {
      hung = hangRenderers();
      // a page given back unwell is closed and another warmed: its renderer is stopped as it appears
      wb.release(p, false);
      // before, this waited the whole warmMs on the page of the dead browser (a job seen waiting 60 s in the suite)
      await crashWhileWarming(wb, hung, () => wb.acquire());
    } finally {
      hung?.release();
      await wb.close();
    }
  },
);

test(
  'the browser killed while a job’s own page warms in it: that job still gets a page, from the relaunched browser',
  { timeout: 120_000 },
  async () => {
    const wb = new WarmBrowser({ chromiumPath: defaultChromiumPath(), log: silentLog, poolSize: 1, warmMs: 600_000 });
    await wb.start();
    const p = await wb.acquire(); // the pool's one page: the next acquire() warms a page of its own
    let hung: ReturnType<typeof hangRenderers> | null = null;
    try {
      hung = hangRenderers();
      const pending = wb.acquire();
      // a failure of that page (closed with its browser) is the browser's going, not the job's
      await crashWhileWarming(wb, hung, () => pending);
      wb.release(p, false);
    } finally {
      hung?.release();
      await wb.close();
    }
  },
);
