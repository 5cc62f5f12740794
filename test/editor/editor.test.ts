// The editor at `/` driven as a person would, in the real Chromium against the real service and renderer:
// the first preview, diagnostics as you type, the scrubber, the preview against /v1/frame, renders and uploads.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodePng } from '../../src/render/png.js';
import { runJob } from '../helpers/job-client.js';
import { MOVING } from '../helpers/video.js';
import { exampleSources } from '../../scripts/build-editor.js';
import {
  decodePng,
  differingPixels,
  openEditor,
  closeEditor,
  pixelAt,
  previewPixels,
  previewSettled,
  setSource,
  rigForFile,
  LIMIT,
  WAIT_MS,
} from './helpers.js';

const rig = rigForFile();

const STILL = `runner "0.0.3";
use std.shapes.*;
scene s() -> Frame {
  let bg = rect(width: 640px, height: 360px, fill: #102030);
  let sq = rect(width: 100px, height: 100px, fill: #ff3399);
  compose [bg, sq]
}
`;

test(
  'opened fresh, the page shows an example and its preview draws the scene (timings in the test log)',
  LIMIT,
  async (t) => {
    const page = await openEditor(rig);
    await page.waitForFunction(() => window.cmEditor.firstPreviewMs !== null, null, { timeout: WAIT_MS });
    const source = await page.evaluate(() => window.cmEditor.source);
    assert.ok(
      exampleSources().some((e) => e.source === source),
      'the editor holds one of examples/*.cm',
    );
    const px = await previewPixels(page);
    assert.ok(px.width > 100 && px.height > 50, `${px.width}x${px.height}`);
    // the scene's background and at least one other colour: the drawer drew, not just cleared
    const bg = pixelAt(px, 2, 2).join();
    let other = 0;
    for (let y = 0; y < px.height; y += 2)
      for (let x = 0; x < px.width; x += 2) if (pixelAt(px, x, y).join() !== bg) other++;
    assert.ok(other > 50, `only ${other} sampled pixels differ from the background ${bg}`);
    assert.notEqual(bg, '0,0,0,0');
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
      return {
        domContentLoaded: nav.domContentLoadedEventEnd,
        load: nav.loadEventEnd,
        firstPreview: window.cmEditor.firstPreviewMs,
      };
    });
    t.diagnostic(
      `page load ${Math.round(timing.load)} ms, DOMContentLoaded ${Math.round(timing.domContentLoaded)} ms, first preview ${Math.round(timing.firstPreview!)} ms`,
    );
    await closeEditor(rig, page);
  },
);

test('a misspelt name shows NAM003 on its line as /v1/check reports it, and fixing it clears it', LIMIT, async (t) => {
  const page = await openEditor(rig);
  await setSource(page, STILL);
  const list = page.locator('[data-testid="diagnostics"]');
  assert.equal(await list.locator('li').count(), 0);
  // put the cursor after `sq` in `compose [bg, sq]` and type a letter, as a person would
  await page.evaluate(() => {
    const v = window.cmEditor.view;
    v.dispatch({ selection: { anchor: v.state.doc.toString().indexOf('sq]') + 2 } });
    v.focus();
  });
  const typedAt = Date.now();
  await page.keyboard.type('q');
  const item = list.locator('[data-code="NAM003"]');
  await item.waitFor({ timeout: WAIT_MS });
  const shownAfter = Date.now() - typedAt;
  const wrong = STILL.replace('sq]', 'sqq]');
  assert.equal(await page.evaluate(() => window.cmEditor.source), wrong);
  const served = (await rig.t.app.inject({ method: 'POST', url: '/v1/check', payload: { source: wrong } })).json();
  assert.deepEqual(
    served.diagnostics.map((d: { code: string; line: number }) => [d.code, String(d.line)]),
    [['NAM003', '6']],
  );
  assert.equal(await item.getAttribute('data-line'), '6');
  assert.equal(await item.getAttribute('data-column'), String(served.diagnostics[0].column));
  // the underline covers exactly the span /v1/check gives
  const underlined = await page.locator('.cm-lintRange-error').first().textContent();
  assert.equal(underlined, 'sqq');
  await page.keyboard.press('Backspace');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="diagnostics"] li').length === 0, null, {
    timeout: WAIT_MS,
  });
  t.diagnostic(`NAM003 listed ${shownAfter} ms after the keystroke (150 ms of it the debounce)`);
  await closeEditor(rig, page);
});

test(
  'a still scene shows no scrubber and no Play (nothing to scrub through); an animated one shows both',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, STILL);
    assert.equal(await page.locator('[data-testid="scrubber"]').isVisible(), false);
    assert.equal(await page.locator('[data-testid="play"]').isVisible(), false);
    assert.equal(await page.locator('#time').textContent(), 'a still (no animation)');
    await setSource(page, MOVING);
    assert.equal(await page.locator('[data-testid="scrubber"]').isVisible(), true);
    assert.equal(await page.locator('[data-testid="play"]').isVisible(), true);
    assert.match((await page.locator('#time').textContent()) ?? '', /^0\.00 s \/ 1\.00 s$/);
    await closeEditor(rig, page);
  },
);

test('moving the scrubber changes the preview and the time shown', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  const a = await previewPixels(page);
  const before = await page.evaluate(() => window.cmEditor.previews);
  await page.locator('[data-testid="scrubber"]').fill('0.75');
  await previewSettled(page, before);
  assert.equal(await page.evaluate(() => window.cmEditor.time), 0.75);
  assert.match((await page.locator('#time').textContent()) ?? '', /^0\.75 s/);
  const b = await previewPixels(page);
  assert.ok(differingPixels(a, b) > 100, 'the square moved');
  await closeEditor(rig, page);
});

test('play runs time forward and pause stops it', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  const play = page.locator('[data-testid="play"]');
  await play.click();
  assert.equal(await play.getAttribute('aria-pressed'), 'true');
  await page.waitForFunction(() => window.cmEditor.time > 0.05, null, { timeout: WAIT_MS });
  await play.click();
  assert.equal(await play.getAttribute('aria-pressed'), 'false');
  const stopped = await page.evaluate(() => window.cmEditor.time);
  await page.waitForTimeout(200);
  assert.equal(await page.evaluate(() => window.cmEditor.time), stopped);
  await closeEditor(rig, page);
});

for (const scale of [1, 2]) {
  test(
    `the preview canvas at a time is the service frame at that time and size, pixel for pixel (device pixel ratio ${scale})`,
    LIMIT,
    async () => {
      const page = await openEditor(rig, '', scale);
      await setSource(page, MOVING);
      const before = await page.evaluate(() => window.cmEditor.previews);
      await page.locator('[data-testid="scrubber"]').fill('0.3');
      await previewSettled(page, before);
      const local = await previewPixels(page);
      // as many canvas pixels as the screen shows: CSS size times the ratio
      const cssWidth = await page.locator('[data-testid="preview"]').evaluate((c) => c.getBoundingClientRect().width);
      assert.ok(Math.abs(local.width - cssWidth * scale) <= 1, `${local.width} pixels over ${cssWidth} CSS px`);
      const job = await runJob(rig.t.app, '/v1/frame', {
        source: MOVING,
        params: { width: local.width, height: local.height, at: 0.3 },
      });
      assert.equal(job.json().status, 'ready', job.body);
      const served = decodePng((await rig.t.app.inject({ url: job.json().url })).rawPayload);
      assert.deepEqual([served.width, served.height], [local.width, local.height]);
      assert.equal(differingPixels(local, served), 0);
      await closeEditor(rig, page);
    },
  );
}

test(
  'render-png shows the PNG from /v1/outputs at the current time; render-mp4 a video that plays',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, MOVING);
    await page.locator('#width').fill('320');
    await page.locator('#height').fill('180');
    await page.locator('[data-testid="render-png"]').click();
    const img = page.locator('[data-testid="result"] img');
    await img.waitFor({ timeout: 60_000 });
    assert.match((await img.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.png$/);
    // the download is named after the scene (`scene moving`), not the job's id
    const link = page.locator('[data-testid="result"] a');
    assert.equal(await link.getAttribute('download'), 'moving.png');
    assert.equal(await link.textContent(), 'Download moving.png');
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="result"] img') as HTMLImageElement | null)?.naturalWidth === 320,
      null,
      { timeout: WAIT_MS },
    );

    await page.locator('#fps').fill('10');
    await page.locator('#duration').fill('1');
    await page.locator('[data-testid="render-mp4"]').click();
    const video = page.locator('[data-testid="result"] video');
    await video.waitFor({ timeout: 120_000 });
    assert.match((await video.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.mp4$/);
    assert.equal(await page.locator('[data-testid="result"] a').getAttribute('download'), 'moving.mp4');
    // playable: the browser decodes it and time runs
    await page.waitForFunction(
      () => {
        const v = document.querySelector('[data-testid="result"] video') as HTMLVideoElement;
        return v.readyState >= 2 && v.videoWidth === 320 && v.currentTime > 0;
      },
      null,
      { timeout: WAIT_MS },
    );
    const d = await video.evaluate((v: HTMLVideoElement) => v.duration);
    assert.ok(Math.abs(d - 1) < 0.15, `duration ${d}`);
    await closeEditor(rig, page);
  },
);

test(
  'the render panel offers the still format, the codec and the quality: a WebP still, a VP9 WebM',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    await setSource(page, MOVING);
    await page.locator('#width').fill('160');
    await page.locator('#height').fill('90');
    await page.locator('#quality').fill('80');
    await page.locator('#format').selectOption('webp');
    assert.equal(await page.locator('[data-testid="render-png"]').textContent(), 'Render WebP');
    await page.locator('[data-testid="render-png"]').click();
    const img = page.locator('[data-testid="result"] img');
    await img.waitFor({ timeout: 60_000 });
    assert.match((await img.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.webp$/);
    await page.locator('#codec').selectOption('vp9');
    assert.equal(await page.locator('[data-testid="render-mp4"]').textContent(), 'Render VP9 WebM');
    await page.locator('#fps').fill('5');
    await page.locator('#duration').fill('0.4');
    await page.locator('[data-testid="render-mp4"]').click();
    const video = page.locator('[data-testid="result"] video');
    await video.waitFor({ timeout: 120_000 });
    assert.match((await video.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.webm$/);
    await closeEditor(rig, page);
  },
);

test('Ctrl+Enter renders a PNG; a failing render shows its error with its line', LIMIT, async () => {
  const page = await openEditor(rig);
  // compiles in the page, fails in the service: an image that was never uploaded (ASS001 at its literal)
  await page.evaluate(
    (s) => window.cmEditor.setSource(s),
    STILL.replace('compose [bg, sq]', 'compose [bg, image("/img/none.png")]'),
  );
  await page.locator('#width').fill('64');
  await page.locator('#height').fill('36');
  await page.locator('#width').press('Control+Enter');
  const status = page.locator('#job-status');
  await page.waitForFunction(() => /failed/.test(document.getElementById('job-status')!.textContent ?? ''), null, {
    timeout: 60_000,
  });
  assert.match((await status.textContent()) ?? '', /ASS001/);
  assert.equal(await status.locator('button').textContent(), 'line 6');
  await closeEditor(rig, page);
});

test('an uploaded image appears in the preview and goes with the render', LIMIT, async () => {
  const page = await openEditor(rig);
  const probe = Buffer.from(
    encodePng(
      new Uint8Array(32 * 32 * 4).map((_, i) => [0x33, 0xcc, 0x66, 255][i % 4]!),
      32,
      32,
    ),
  );
  // the image is the frame's background (the first layer), as in examples/image.cm
  const source = STILL.replace('compose [bg, sq]', 'compose [image("/img/probe.png").fit(cover), sq]');
  await page.evaluate((s) => window.cmEditor.setSource(s), source);
  await page.waitForFunction(() => /ASS001/.test(document.getElementById('preview-status')!.textContent ?? ''), null, {
    timeout: WAIT_MS,
  });
  const before = await page.evaluate(() => window.cmEditor.previews);
  await page.locator('#upload').setInputFiles({ name: 'probe.png', mimeType: 'image/png', buffer: probe });
  await previewSettled(page, before);
  const px = await previewPixels(page);
  const centre = pixelAt(px, px.width / 8, px.height / 2);
  assert.ok(
    Math.abs(centre[0]! - 0x33) <= 2 && Math.abs(centre[1]! - 0xcc) <= 2 && Math.abs(centre[2]! - 0x66) <= 2,
    `centre ${centre}`,
  );
  assert.match((await page.locator('#assets').textContent()) ?? '', /\/img\/probe\.png → asset_[0-9a-f]{32}/);

  await page.locator('#width').fill('64');
  await page.locator('#height').fill('36');
  await page.locator('[data-testid="render-png"]').click();
  await page.locator('[data-testid="result"] img').waitFor({ timeout: 60_000 });
  const url = await page.locator('[data-testid="result"] img').getAttribute('src');
  const out = decodePng((await rig.t.app.inject({ url: url! })).rawPayload);
  const c = pixelAt(out, 8, 18);
  assert.ok(
    Math.abs(c[0]! - 0x33) <= 2 && Math.abs(c[1]! - 0xcc) <= 2 && Math.abs(c[2]! - 0x66) <= 2,
    `rendered centre ${c}`,
  );
  await closeEditor(rig, page);
});

test('the source survives a reload (local storage) and travels in a share link', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, STILL);
  await page.reload();
  await page.waitForFunction(() => window.cmEditor?.source !== undefined, null, { timeout: WAIT_MS });
  assert.equal(await page.evaluate(() => window.cmEditor.source), STILL);
  await page
    .context()
    .grantPermissions(['clipboard-read', 'clipboard-write'])
    .catch(() => {});
  await page.locator('#share').click();
  await page.waitForFunction(() => location.hash.startsWith('#s='), null, { timeout: WAIT_MS });
  const hash = await page.evaluate(() => location.hash);
  await closeEditor(rig, page);
  const fresh = await openEditor(rig, hash);
  await fresh.waitForFunction((s) => window.cmEditor.source === s, STILL, { timeout: WAIT_MS });
  await closeEditor(rig, fresh);
});

test('the .cm mode: highlighting, bracket matching, comment toggling and auto-indent', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, STILL);
  const styleOf = (text: string) =>
    page.evaluate((w) => {
      const spans = [...document.querySelectorAll('.cm-content span')].filter((s) => s.textContent === w);
      return spans.length ? getComputedStyle(spans[0]!).color : null;
    }, text);
  // a keyword, a number with its unit, a hex colour and a string each have their own colour
  const colours = await Promise.all(['scene', '640px', '#102030', '"0.0.3"'].map(styleOf));
  assert.ok(
    colours.every((c) => c !== null),
    JSON.stringify(colours),
  );
  assert.equal(new Set(colours).size, 4, JSON.stringify(colours));
  const view = (js: string) => page.evaluate(js);
  // the cursor after `{` on line 3 highlights it and its partner
  await view(
    `(() => { const v = window.cmEditor.view; v.dispatch({ selection: { anchor: v.state.doc.line(3).to } }); v.focus(); })()`,
  );
  assert.equal(await page.locator('.cm-matchingBracket').count(), 2);
  // Enter after `{` indents the new line by one level; a typed `}` dedents it again
  await page.keyboard.press('End');
  await page.keyboard.press('Enter');
  assert.equal(await view('window.cmEditor.view.state.doc.line(4).text'), '  ');
  await page.keyboard.press('Control+z');
  // Ctrl+/ comments the line out and back in
  await view(
    `(() => { const v = window.cmEditor.view; v.dispatch({ selection: { anchor: v.state.doc.line(5).from + 4 } }); v.focus(); })()`,
  );
  await page.keyboard.press('Control+/');
  assert.match(String(await view('window.cmEditor.view.state.doc.line(5).text')), /^\s*\/\/ let sq/);
  await page.keyboard.press('Control+/');
  assert.match(String(await view('window.cmEditor.view.state.doc.line(5).text')), /^\s*let sq/);
  // completion offers the standard library's names
  await page.keyboard.press('End');
  await page.keyboard.type(' circ');
  await page.locator('.cm-tooltip-autocomplete').waitFor({ timeout: WAIT_MS });
  assert.match((await page.locator('.cm-tooltip-autocomplete').textContent()) ?? '', /circle/);
  await closeEditor(rig, page);
});

test('the server preview switch shows the service frame at the scrubber time and canvas size', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  const size = await page.evaluate(() => window.cmEditor.previewPixels());
  const before = await page.evaluate(() => window.cmEditor.previews);
  await page.locator('#server-mode').check();
  await previewSettled(page, before);
  const img = page.locator('#server-preview');
  assert.equal(await img.isVisible(), true);
  assert.equal(await page.locator('[data-testid="preview"]').isVisible(), false);
  assert.match((await img.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.png$/);
  assert.deepEqual(await img.evaluate((i: HTMLImageElement) => [i.naturalWidth, i.naturalHeight]), [
    size.width,
    size.height,
  ]);
  await closeEditor(rig, page);
});

test(
  'every control is labelled and the keyboard reaches them in order (Esc then Tab leaves the editor)',
  LIMIT,
  async () => {
    const page = await openEditor(rig);
    // an animated scene: a still has no Play or scrubber to reach
    await setSource(page, MOVING);
    const unnamed = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('button, input, select, a, canvas, [contenteditable="true"]')]
        .filter((el) => {
          const labels = (el as HTMLInputElement).labels;
          const name =
            el.getAttribute('aria-label') ?? (labels?.length ? labels[0]!.textContent : null) ?? el.textContent;
          return !name?.trim();
        })
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    assert.deepEqual(unnamed, []);
    const order: string[] = [];
    for (let i = 0; i < 30 && order.length < 30; i++) {
      await page.keyboard.press('Tab');
      const at = await page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        return el?.id || (el?.classList.contains('cm-content') ? 'source' : el?.tagName.toLowerCase()) || '';
      });
      order.push(at);
      if (at === 'source') {
        await page.keyboard.press('Escape');
      }
      if (at === 'render-gif') break;
    }
    const want = [
      'example',
      'share',
      'upload',
      'source',
      'play',
      'scrubber',
      'server-mode',
      'width',
      'height',
      'fps',
      'duration',
      'format',
      'codec',
      'quality',
      'render-png',
      'render-mp4',
      'render-gif',
    ];
    const seen = order.filter((id) => want.includes(id));
    assert.deepEqual(seen, want, order.join(' '));
    // focus is visible: the focused button draws an outline
    assert.notEqual(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle), 'none');
    await closeEditor(rig, page);
  },
);

test('a render behind another job shows its queue position, then its progress, then the result', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  await page.evaluate(() => {
    // remember every status the page shows, however briefly
    const seen: string[] = ((window as unknown as { seen: string[] }).seen = []);
    const el = document.getElementById('job-status')!;
    new MutationObserver(() => seen.push(el.textContent ?? '')).observe(el, {
      childList: true,
      characterData: true,
      subtree: true,
    });
  });
  await page.locator('#width').fill('160');
  await page.locator('#height').fill('90');
  await page.locator('#fps').fill('10');
  await page.locator('#duration').fill('2');
  // a job ahead in the queue (one render at a time), held in hand until the page has shown its place behind it
  const release = rig.renderer.holdNext();
  const ahead = await rig.t.app.inject({
    method: 'POST',
    url: '/v1/render',
    payload: { source: MOVING, params: { duration: 2, fps: 30, width: 640, height: 360 } },
  });
  assert.equal(ahead.statusCode, 202);
  try {
    await page.locator('[data-testid="render-mp4"]').click();
    await page.locator('#job-status', { hasText: /^MP4: queue position 1$/ }).waitFor({ timeout: WAIT_MS });
  } finally {
    release();
  }
  await page.locator('[data-testid="result"] video').waitFor({ timeout: 120_000 });
  const seen = await page.evaluate(() => (window as unknown as { seen: string[] }).seen);
  assert.ok(
    seen.some((s) => /^MP4: queue position 1$/.test(s)),
    seen.join(' | '),
  );
  assert.ok(
    seen.some((s) => /^MP4: rendering( \d+%)?$/.test(s)),
    seen.join(' | '),
  );
  assert.match(seen.at(-1)!, /^MP4: ready \(160×90\)$/);
  await closeEditor(rig, page);
});

test('an image dropped on the page is uploaded and mapped as /img/<name>', LIMIT, async () => {
  const page = await openEditor(rig);
  const png = [...encodePng(new Uint8Array(4 * 4 * 4).fill(200), 4, 4)];
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'dropped.png', { type: 'image/png' }));
    document.body.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, png);
  await page.waitForFunction(
    () => /\/img\/dropped\.png → asset_/.test(document.getElementById('assets')!.textContent ?? ''),
    null,
    { timeout: WAIT_MS },
  );
  const key = /asset_[0-9a-f]{32}/.exec((await page.locator('#assets').textContent())!)![0];
  const back = await rig.t.app.inject({ url: `/v1/assets/${key}` });
  assert.deepEqual([...back.rawPayload], png);
  await closeEditor(rig, page);
});

test('without WebGL the page says so and previews through the service', LIMIT, async () => {
  const ctx = await rig.browser.newContext({ viewport: { width: 1280, height: 800 } });
  // a browser without WebGL: every WebGL context request fails, as it does where WebGL is off
  await ctx.addInitScript(() => {
    const get = HTMLCanvasElement.prototype.getContext;
    HTMLCanvasElement.prototype.getContext = function (this: HTMLCanvasElement, type: string, ...rest: unknown[]) {
      return /webgl/i.test(type) ? null : (get as (...a: unknown[]) => unknown).call(this, type, ...rest);
    } as typeof get;
  });
  const page = await ctx.newPage();
  await page.goto(`${rig.base}/`);
  await page.waitForFunction(() => window.cmEditor?.firstPreviewMs != null, null, { timeout: 60_000 });
  assert.equal(await page.locator('#server-mode').isChecked(), true);
  assert.match((await page.locator('#preview-status').textContent()) ?? '', /no WebGL/);
  assert.equal(await page.locator('#server-preview').isVisible(), true);
  assert.match((await page.locator('#server-preview').getAttribute('src')) ?? '', /^\/v1\/outputs\/.+\.png$/);
  await ctx.close();
});

test('render-gif shows the GIF inline (or, on a service without POST /v1/gif, says so)', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  for (const [field, value] of [
    ['#width', '64'],
    ['#height', '36'],
    ['#fps', '5'],
    ['#duration', '1'],
  ])
    await page.locator(field!).fill(value!);
  await page.locator('[data-testid="render-gif"]').click();
  if (rig.t.app.hasRoute({ method: 'POST', url: '/v1/gif' })) {
    const img = page.locator('[data-testid="result"] img');
    await img.waitFor({ timeout: 60_000 });
    assert.match((await img.getAttribute('src')) ?? '', /^\/v1\/outputs\/[0-9a-f-]+\.gif$/);
    await page.waitForFunction(
      () => (document.querySelector('[data-testid="result"] img') as HTMLImageElement).naturalWidth === 64,
      null,
      { timeout: WAIT_MS },
    );
  } else {
    await page.waitForFunction(
      () =>
        /GIF failed: this service has no \/v1\/gif endpoint/.test(
          document.getElementById('job-status')!.textContent ?? '',
        ),
      null,
      { timeout: WAIT_MS },
    );
  }
  await closeEditor(rig, page);
});

test('the preview keeps its size once a rendered result shows below it', LIMIT, async () => {
  const page = await openEditor(rig);
  await setSource(page, MOVING);
  const size = () =>
    page.evaluate(() => {
      const r = document.getElementById('stage')!.getBoundingClientRect();
      return [Math.round(r.width), Math.round(r.height)];
    });
  const before = await size();
  await page.locator('#width').fill('640');
  await page.locator('#height').fill('360');
  await page.locator('[data-testid="render-png"]').click();
  await page.waitForFunction(
    () => ((document.querySelector('[data-testid="result"] img') as HTMLImageElement | null)?.naturalWidth ?? 0) > 0,
    null,
    { timeout: WAIT_MS },
  );
  // the result is laid out (its image decoded): the stage is measured after it
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.deepEqual(await size(), before);
  await closeEditor(rig, page);
});
