// What a launched Chromium runs: the features Playwright turns off stay off beside ours (Chromium keeps only the last
// `--disable-features` switch, and ours comes after Playwright's), and no page of the browser's own UI is loaded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { BROWSER_UI_FEATURES_OFF, browserPid, closeChromium, launchChromium } from '../../src/render/chromium.js';
import { descendants } from '../helpers/service-process.js';

let browser: Browser;
before(async () => {
  browser = await launchChromium('swiftshader');
  const page = await (await browser.newContext()).newPage();
  await page.goto('about:blank');
});
after(() => closeChromium(browser, 5_000));

test('every feature Playwright turns off is in the last --disable-features the browser got, with ours', () => {
  const argv = readFileSync(`/proc/${browserPid(browser)}/cmdline`, 'utf8').split('\0');
  const lists = argv.filter((a) => a.startsWith('--disable-features=')).map((a) => a.split('=')[1]!.split(','));
  assert.ok(lists.length >= 1, argv.join(' '));
  const last = new Set(lists.at(-1));
  for (const f of [...lists.flat(), ...BROWSER_UI_FEATURES_OFF])
    assert.ok(last.has(f), `${f} is not in the --disable-features that counts (${[...last].join(',')})`);
});

test('no page of the browser UI is loaded: no chrome:// target, no renderer for top-chrome WebUI', async () => {
  const cdp = await browser.newBrowserCDPSession();
  // an empty filter entry lists every kind of target, the browser's own UI pages too
  const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] } as never)) as {
    targetInfos: { type: string; url: string }[];
  };
  assert.deepEqual(
    targetInfos.filter((t) => t.url.startsWith('chrome://')),
    [],
  );
  assert.ok(
    targetInfos.some((t) => t.url === 'about:blank'),
    JSON.stringify(targetInfos),
  );
  const webui = descendants(process.pid).filter((p) => p.cmdline.includes('--top-chrome-webui'));
  assert.deepEqual(
    webui.map((p) => p.pid),
    [],
  );
});
