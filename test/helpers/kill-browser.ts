// Kills a warm browser's Chromium as the OOM killer would, by its process id (SIGKILL), so a test sees the relaunch a
// real crash causes. Not CDP's Browser.crash: under load that left a browser stuck in its crash handler, neither
// dead nor answering.
import type { WarmBrowser } from '../../src/render/page/warm-browser.js';

export function killBrowser(browser: WarmBrowser): void {
  const pid = browser.pid;
  if (pid) process.kill(pid, 'SIGKILL');
}
