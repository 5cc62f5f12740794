// How Chromium is started, for the service and the tests alike: Debian's /usr/bin/chromium (or CHROMIUM_PATH)
// through playwright-core, headless, software WebGL, nothing that reaches the network on its own.
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_FLAGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  // without these Chromium calls home at start; this machine (and a fenced deployment) refuses it
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  // software WebGL2 through ANGLE + SwiftShader: the same pixels on every machine
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
  '--disable-dev-shm-usage',
  '--hide-scrollbars',
  '--mute-audio',
  '--force-color-profile=srgb',
];

export function defaultChromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
}

/** Our signal handling stays ours: the service decides when Chromium goes (graceful SIGTERM). */
export function launchChromium(executablePath = defaultChromiumPath()): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [...CHROMIUM_FLAGS],
    handleSIGINT: false,
    handleSIGTERM: false,
    handleSIGHUP: false,
  });
}
