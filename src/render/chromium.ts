// How Chromium is started, for the service and the tests alike: Debian's /usr/bin/chromium (or CHROMIUM_PATH)
// through playwright-core, headless, WebGL on the chosen GL backend (gl-backend.ts), nothing that reaches the
// network on its own.
import { createRequire } from 'node:module';
import type { Browser, BrowserType } from 'playwright-core';
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
  type ProbeResult,
} from './gl-backend.js';
import { settleWithin } from '../contract/settle-within.js';
import { within } from './settles-within.js';

const CHROMIUM_SETTING = SERVICE_SETTINGS.pick({ chromiumPath: true });

/**
 * playwright-core, loaded when a browser is first launched: a process that never draws (an API beside workers, most
 * CLI commands) does not pay for it, and it is required as CommonJS because an ESM import has Node scan its 3.6 MB
 * bundle for export names first (about 140 ms of CPU in every process that renders).
 */
let playwright: BrowserType | null = null;
const chromiumType = (): BrowserType =>
  (playwright ??= (createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core')).chromium);

/**
 * Playwright's own `--disable-features` list. Chromium keeps only the last `--disable-features` switch, so ours (after
 * Playwright's) repeats it; test/render/chromium-flags.test.ts fails when an upgrade of Playwright changes it.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * The address bar's popups are WebUI pages that a headless browser loads at every launch, in a renderer of its own,
 * and never shows: about 0.6 s of CPU per launch, half of what a launch costs (measured on 2 cores).
 */
export const BROWSER_UI_FEATURES_OFF = ['WebUIOmniboxPopup', 'WebUIOmniboxAimPopup'];

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
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...BROWSER_UI_FEATURES_OFF].join(',')}`,
];

/** CHROMIUM_PATH, read as every process reads it (src/config/settings.ts). */
export function defaultChromiumPath(): string {
  return readSettings(CHROMIUM_SETTING).chromiumPath;
}

/**
 * Our signal handling stays ours: the service decides when Chromium goes (graceful SIGTERM). The browser's pid is
 * asked for at once, while it answers, for a close that has to kill it (closeChromium).
 */
export async function launchChromium(backend: GlBackend, executablePath = defaultChromiumPath()): Promise<Browser> {
  const browser = await chromiumType().launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS, ...GL_FLAGS[backend]],
    env: glEnv(backend),
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
    // Playwright's default is 3 minutes: a browser that has not started in one will not
    timeout: LAUNCH_MS,
  });
  try {
    const pid = await within(askPid(browser), LAUNCH_MS, 'asking the browser its pid');
    if (pid !== null) pids.set(browser, pid);
  } catch (err) {
    await browser.close().catch(() => {});
    throw err;
  }
  return browser;
}

/** each launched browser's process id (the leader of its process group) */
const pids = new WeakMap<Browser, number>();

/** how long a Chromium start may take (2–3 s on a loaded machine) before it counts as failed */
const LAUNCH_MS = 60_000;
/** how long a browser whose probe failed may take to close before its processes are killed */
const CLOSE_MS = 5_000;

/**
 * Launches Chromium on the first backend of the setting that draws a probe frame (`auto`: egl, else swiftshader)
 * and says which it got. A setting none of whose backends draws throws GlUnavailable: an operator who asked for
 * `egl` gets a clear failure, not a silent fallback. `judge` draws and judges the probe (default drawsOn; the warm
 * pool's keeps the probe's page).
 */
export async function launchForGl(
  setting: GlSetting,
  executablePath = defaultChromiumPath(),
  judge: (browser: Browser, backend: GlBackend) => Promise<{ probe: ProbeResult; problem: string | null }> = drawsOn,
): Promise<{ browser: Browser; gl: GlProbe; tried: string[] }> {
  const tried: string[] = [];
  for (const backend of candidates(setting)) {
    const browser = await launchChromium(backend, executablePath);
    const { probe, problem } = await judge(browser, backend);
    if (!problem && probe.ok)
      return { browser, gl: { backend, renderer: probe.renderer, vendor: probe.vendor }, tried };
    tried.push(`${backend}: ${problem}`);
    await closeChromium(browser, CLOSE_MS);
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
  const group = browserPid(browser);
  const closed = browser.close().catch(() => {});
  if ((await settleWithin(closed, ms)) || group === null) return;
  try {
    // Playwright starts Chromium as the leader of its own process group
    process.kill(-group, 'SIGKILL');
  } catch {
    // gone already
  }
  await closed;
}

/** The process id of a browser launchChromium started. */
export function browserPid(browser: Browser): number | null {
  return pids.get(browser) ?? null;
}

async function askPid(browser: Browser): Promise<number | null> {
  const cdp = await browser.newBrowserCDPSession();
  const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
  await cdp.detach().catch(() => {});
  return info.processInfo.find((p) => p.type === 'browser')?.id ?? null;
}
