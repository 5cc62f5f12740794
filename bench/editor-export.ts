// The editor's in-browser export against the service's render of the same clip, in one sitting: the homepage
// example (examples/wave.cm), 2 s at 30 fps, 1280x720 WebM (VP9), exported by window.cmEditor.export in the test
// Chromium, then rendered by POST /v1/render (codec vp9) on the same machine. Each run alternates the two; the
// medians are printed. With --screenshot PATH it also saves the editor mid-export (the Export WebM button).
// Run: npm run build && npx tsx bench/editor-export.ts [--runs N] [--screenshot docs/img/editor-export.png]
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/paths.js';
import { post, waitJob } from '../test/helpers/job-client.js';
import { openEditor, setSource, startRig } from '../test/editor/helpers.js';

const arg = (name: string) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const RUNS = Number(arg('--runs') ?? 3);
const SHOT = arg('--screenshot');
const CLIP = { width: 1280, height: 720, fps: 30, duration: 2 };
const source = readFileSync(join(repoRoot, 'examples', 'wave.cm'), 'utf8');

const rig = await startRig();
try {
  const page = await openEditor(rig);
  await setSource(page, source);
  const browser: number[] = [];
  const service: number[] = [];
  const sizes = { browser: 0, service: 0 };
  for (let r = 0; r < RUNS; r++) {
    const b = await page.evaluate(async (clip) => {
      const t0 = performance.now();
      const x = await window.cmEditor.export({ format: 'webm', ...clip });
      return { ms: performance.now() - t0, bytes: x.bytes.length, codec: x.codec };
    }, CLIP);
    browser.push(b.ms);
    sizes.browser = b.bytes;
    const t0 = performance.now();
    const posted = await post(rig.t.app, '/v1/render', { source, params: { ...CLIP, codec: 'vp9' } });
    const done = (await waitJob(rig.t.app, posted.json().job_id, 600_000)).json();
    service.push(performance.now() - t0);
    if (done.status !== 'ready') throw new Error(JSON.stringify(done));
    sizes.service = (await rig.t.app.inject({ url: done.url })).rawPayload.length;
    console.log(`run ${r + 1}: browser ${Math.round(b.ms)} ms (${b.codec}), service ${Math.round(service[r]!)} ms`);
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(
    `wave.cm 1280x720 30 fps 2 s WebM/VP9, median of ${RUNS}: in the browser ${Math.round(median(browser))} ms ` +
      `(${sizes.browser} bytes), the service's /v1/render ${Math.round(median(service))} ms (${sizes.service} bytes)`,
  );
  if (SHOT) {
    await page.locator('#width').fill('1280');
    await page.locator('#height').fill('720');
    await page.locator('#fps').fill('30');
    await page.locator('#duration').fill('6');
    await page.evaluate(() => delete (window as unknown as { showSaveFilePicker?: unknown }).showSaveFilePicker);
    await page.locator('[data-testid="export-webm"]').click();
    await page.waitForFunction(
      () => Number(/frame (\d+) of/.exec(document.getElementById('export-status')!.textContent ?? '')?.[1] ?? 0) >= 60,
      null,
      { timeout: 120_000, polling: 10 },
    );
    await page.screenshot({ path: SHOT });
    await page.locator('[data-testid="export-cancel"]').click();
    console.log(`screenshot: ${SHOT}`);
  }
} finally {
  await rig.close();
}
