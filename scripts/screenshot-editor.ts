// Retakes the README's screenshot (docs/img/editor.png) from the current editor: the built service (`npm run build`
// first) on a free port, the editor in headless Chromium at 1440×900, the glyphs-3d.cm example at 1.2 s, and a
// 480×270 PNG rendered through the API below it. `npx tsx scripts/screenshot-editor.ts [OUT.png]`
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../src/render/chromium.js';
import { repoRoot } from '../src/paths.js';

const out = process.argv[2] ?? join(repoRoot, 'docs', 'img', 'editor.png');
const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-shot-'));
const service = spawn(process.execPath, [join(repoRoot, 'dist', 'app', 'server.js')], {
  env: { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'info' },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const base = await new Promise<string>((resolve, reject) => {
  let buf = '';
  service.on('exit', (code) => reject(new Error(`the service exited ${code}`)));
  service.stdout!.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    const m = /"address":"(http:[^"]+)"[^\n]*"msg":"cmrender ready in/.exec(buf);
    if (m) resolve(m[1]!);
  });
});
const browser = await launchChromium('swiftshader');
try {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${base}/`);
  await page.waitForFunction(() => window.cmEditor?.firstPreviewMs !== null);
  await page.locator('#example').selectOption('glyphs-3d.cm');
  await page.waitForFunction(() => window.cmEditor.source.includes('glyph'));
  await page.evaluate(() => (window.cmEditor.time = 1.2));
  await page.waitForFunction(() => !window.cmEditor.drawing);
  await page.locator('#width').fill('480');
  await page.locator('#height').fill('270');
  await page.locator('[data-testid="render-png"]').click();
  await page.locator('[data-testid="result"] img').waitFor({ timeout: 120_000 });
  await page.waitForFunction(() => {
    const img = document.querySelector<HTMLImageElement>('[data-testid="result"] img');
    return Boolean(img?.complete && img.naturalWidth > 0);
  });
  await page.screenshot({ path: out });
  process.stderr.write(`wrote ${out}\n`);
} finally {
  await browser.close();
  service.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
}
