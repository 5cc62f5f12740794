// What a Chromium launch and a warm drawing page cost in CPU (`npx tsx bench/chromium-cpu.ts [--runs N] [--pages N]`):
// the browser's process group (browser, zygotes, renderers, GPU and utility processes; a dead renderer's time is in
// its zygote's children figure) read from /proc, for a launch (to its first blank page) and for each drawing page
// warmed as WarmBrowser does (a context, the drawing page loaded through the fence). Two flag sets, taken in turn in
// one sitting: ours (CHROMIUM_FLAGS) and ours with the browser-UI features left on (Playwright's list only), so the
// ratio says what turning them off saves. CPU, not wall time: the test suite is CPU-bound on 2 cores.
import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM_FLAGS, defaultChromiumPath } from '../src/render/chromium.js';
import { GL_FLAGS, glEnv } from '../src/render/gl-backend.js';
import { answerPageRequest, PAGE_URL, readPageFiles } from '../src/render/page/fence.js';
import { groupCpu } from './lib/group-cpu.js';

const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
const runs = arg('--runs', 3);
const pages = arg('--pages', 4);
const files = readPageFiles();

const ours = [...CHROMIUM_FLAGS];
const featuresFlag = ours.find((f) => f.startsWith('--disable-features='))!;
// the same list without the features we add: Chromium keeps only the last --disable-features
const uiOn = ours.map((f) =>
  f === featuresFlag
    ? `--disable-features=${featuresFlag
        .split('=')[1]!
        .split(',')
        .filter((x) => !/^WebUIOmnibox/.test(x))
        .join(',')}`
    : f,
);

async function warmPage(b: Browser): Promise<void> {
  const context = await b.newContext({ viewport: { width: 640, height: 360 } });
  await context.route('**/*', (route) => answerPageRequest(route, files, new Map()).then(() => {}));
  const page = await context.newPage();
  await page.goto(PAGE_URL, { waitUntil: 'load' });
  await page.waitForFunction(`typeof window.cmViewer === 'object' && window.cmViewer !== null`);
}

async function measure(args: string[]): Promise<{ launch: number; page: number }> {
  const b = await chromium.launch({
    executablePath: defaultChromiumPath(),
    headless: true,
    args: [...args, ...GL_FLAGS.egl],
    env: glEnv('egl'),
  });
  try {
    const cdp = await b.newBrowserCDPSession();
    const info = (await cdp.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
    const group = info.processInfo.find((p) => p.type === 'browser')!.id;
    const blank = await (await b.newContext()).newPage();
    await blank.goto('about:blank');
    await new Promise((r) => setTimeout(r, 1000)); // what the launch starts in the background
    const launch = groupCpu(group);
    for (let i = 0; i < pages; i++) await warmPage(b);
    return { launch, page: (groupCpu(group) - launch) / pages };
  } finally {
    await b.close();
  }
}

const rows: Record<string, { launch: number[]; page: number[] }> = {
  ours: { launch: [], page: [] },
  'browser UI on': { launch: [], page: [] },
};
for (let r = 0; r < runs; r++) {
  for (const [name, args] of [
    ['ours', ours],
    ['browser UI on', uiOn],
  ] as const) {
    const m = await measure(args);
    rows[name]!.launch.push(m.launch);
    rows[name]!.page.push(m.page);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
for (const [name, v] of Object.entries(rows))
  console.log(
    `${name.padEnd(14)} launch ${median(v.launch).toFixed(2)} s CPU, drawing page ${median(v.page).toFixed(2)} s CPU (median of ${runs}; ${pages} pages a launch)`,
  );
const a = rows.ours!;
const b = rows['browser UI on']!;
console.log(
  `ratio ours / browser UI on: launch ${(median(a.launch) / median(b.launch)).toFixed(2)}, page ${(median(a.page) / median(b.page)).toFixed(2)}`,
);
