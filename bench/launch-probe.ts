// What a warm pool's start costs in CPU (`npx tsx bench/launch-probe.ts [--runs N]`): a launch, its probe frame and
// its first drawing page, the probe drawn in a context of its own then closed (as before) against the probe drawn in
// the context that then becomes the first drawing page (gl-backend.ts's drawsOnKeeping, as WarmBrowser does now).
// The browser's process group is read from /proc once the page is up; the two ways are taken in turn in one sitting,
// so the ratio is what to read on a shared machine.
import type { Browser, BrowserContext } from 'playwright-core';
import { browserPid, closeChromium, launchChromium } from '../src/render/chromium.js';
import { drawsOn, drawsOnKeeping } from '../src/render/gl-backend.js';
import { answerPageRequest, PAGE_URL, readPageFiles } from '../src/render/page/fence.js';
import { groupCpu } from './lib/group-cpu.js';

const i = process.argv.indexOf('--runs');
const runs = i > 0 ? Number(process.argv[i + 1]) : 5;
const files = readPageFiles();
const OPTIONS = { viewport: { width: 640, height: 360 }, deviceScaleFactor: 1, serviceWorkers: 'block' as const };

async function firstPage(b: Browser, kept: BrowserContext | null): Promise<void> {
  const context = kept ?? (await b.newContext(OPTIONS));
  await context.route('**/*', (route) => answerPageRequest(route, files, new Map()).then(() => {}));
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(PAGE_URL, { waitUntil: 'load' });
  await page.waitForFunction(`typeof window.cmViewer === 'object' && window.cmViewer !== null`);
}

const ways = {
  'probe in its own context': async (b: Browser) => {
    await drawsOn(b, 'egl');
    await firstPage(b, null);
  },
  'probe in the first page': async (b: Browser) => {
    const { context } = await drawsOnKeeping(b, 'egl', OPTIONS);
    await firstPage(b, context);
  },
};
const cpu: Record<string, number[]> = {};
for (let r = 0; r < runs; r++)
  for (const [name, start] of Object.entries(ways)) {
    const b = await launchChromium('egl');
    await start(b);
    await new Promise((res) => setTimeout(res, 500)); // what the page starts in the background
    (cpu[name] ??= []).push(groupCpu(browserPid(b)!));
    await closeChromium(b, 5_000);
  }
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, xs] of Object.entries(cpu))
  console.log(
    `${name.padEnd(26)} ${median(xs).toFixed(2)} s CPU (median of ${runs}: ${xs.map((x) => x.toFixed(2)).join(' ')})`,
  );
const [before, after] = Object.values(cpu).map(median);
console.log(`ratio now / before: ${(after! / before!).toFixed(2)}`);
