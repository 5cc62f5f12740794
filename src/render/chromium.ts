// How Chromium is started, for the service and the tests alike: Debian's /usr/bin/chromium (or CHROMIUM_PATH)
// through playwright-core, headless, WebGL on the chosen GL backend (gl-backend.ts), nothing that reaches the
// network on its own.
import { chromium, type Browser } from 'playwright-core';
import { SERVICE_SETTINGS } from '../config/settings.js';
import { readSettings } from '../config/setting.js';
import {
  candidates,
  GL_FLAGS,
  glEnv,
  GlUnavailable,
  drawsOn,
  type GlBackend,
  type GlProbe,
  type GlSetting,
} from './gl-backend.js';
import { settlesWithin } from './settles-within.js';

const CHROMIUM_SETTING = SERVICE_SETTINGS.pick({ chromiumPath: true });

export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-quic',
  '--no-first-run',
  // without these Chromium calls home at start; this machine (and a fenced deployment) refuses it
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
  '--force-color-profile=srgb',
  // a GPU process that died (killed, a driver reset) must not get our page's origin barred from WebGL
  '--disable-domain-blocking-for-3d-apis',
];

/** CHROMIUM_PATH, read as every process reads it (src/config/settings.ts). */
export function defaultChromiumPath(): string {
  return readSettings(CHROMIUM_SETTING).chromiumPath;
}

/** Our signal handling stays ours: the service decides when Chromium goes (graceful SIGTERM). */
export function launchChromium(backend: GlBackend, executablePath = defaultChromiumPath()): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...GL_FLAGS[backend]],
    env: glEnv(backend),
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}

/**
 * Launches Chromium on the first backend of the setting that draws a probe frame (`auto`: egl, else swiftshader)
 * and says which it got. A setting none of whose backends draws throws GlUnavailable: an operator who asked for
 * `egl` gets a clear failure, not a silent fallback.
 */
export async function launchForGl(
  setting: GlSetting,
  executablePath = defaultChromiumPath(),
): Promise<{ browser: Browser; gl: GlProbe; tried: string[] }> {
  const tried: string[] = [];
  for (const backend of candidates(setting)) {
    const browser = await launchChromium(backend, executablePath);
    const { probe, problem } = await drawsOn(browser, backend);
    if (!problem && probe.ok)
      return { browser, gl: { backend, renderer: probe.renderer, vendor: probe.vendor }, tried };
    tried.push(`${backend}: ${problem}`);
    await browser.close().catch(() => {});
  }
  throw new GlUnavailable(setting, tried);
}

/**
 * Closes a browser. Chromium's own shutdown waits about 30 s on a renderer that does not answer (hung, stopped,
 * swapped out), and Playwright's close waits for every process holding the browser's output; past `ms` the
 * browser's process group (the browser, its zygotes, renderers, GPU and utility processes) is killed instead, so a
 * shutdown never waits on a page.
 */
export async function closeChromium(browser: Browser, ms: number): Promise<void> {
  let group: number | null = null;
  await settlesWithin(
    browserPid(browser).then((pid) => (group = pid)),
    ms,
  );
  const closed = browser.close().catch(() => {});
  if ((await settlesWithin(closed, ms)) || group === null) return;
  try {
    // Playwright starts Chromium as the leader of its own process group
    process.kill(-group, 'SIGKILL');
  } catch {
    // gone already
  }
  await closed;
}

/** The browser process's id, as Chromium reports it. */
export async function browserPid(browser: Browser): Promise<number | null> {
  const cdp = await browser.newBrowserCDPSession();
  const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  await cdp.detach().catch(() => {});
  return info.processInfo.find((p) => p.type === 'browser')?.id ?? null;
}
