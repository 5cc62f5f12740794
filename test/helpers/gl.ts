// The GL backend tests draw with: RENDER_GL as the service reads it (default auto), so a test's own Chromium (the
// viewer and editor tests) draws on the same backend as the service it is compared with.
import type { Browser } from 'playwright-core';
import type { GlSetting } from '../../src/contract/hardware.js';
import { SERVICE_SETTINGS } from '../../src/config/settings.js';
import { readSettings } from '../../src/config/setting.js';
import { launchForGl } from '../../src/render/chromium.js';

export const testGl: GlSetting = readSettings(SERVICE_SETTINGS.pick({ renderGl: true })).renderGl;

/** Chromium on the tests' GL backend (the first of the setting that draws a probe frame). */
export async function launchTestChromium(setting: GlSetting = testGl): Promise<Browser> {
  return (await launchForGl(setting)).browser;
}
