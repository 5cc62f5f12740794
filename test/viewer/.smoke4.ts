import { launch, openViewer, load, frameAt, px, writePng } from './helper';
import { readFileSync } from 'node:fs';
const b = await launch();
const page = await openViewer(b, 1920, 1080, 'dist');
const names = process.argv.slice(2);
for (const name of names) {
  const src = readFileSync(`/work/shared/examples/${name}.cm`, 'utf8');
  const sq = name === 'plinken-svg' || name === 'handdrawn';
  const W = sq ? 1080 : 1920, H = 1080;
  let t0 = Date.now();
  const r = await load(page, src, W, H);
  console.log(name, 'load', Date.now() - t0, 'ms');
  if (!r.ok) { console.log(name, r); continue; }
  for (const t of [0, 1.5]) {
    t0 = Date.now();
    const f = await frameAt(page, t);
    console.log(name, t, Date.now() - t0, 'ms', px(f, W/2, 540), await page.evaluate(() => (window as any).cmViewer.warnings));
    writePng(f, `/tmp/vt/${name}@${t}.png`);
  }
}
await b.close();
