// The editor page at `/`: CodeMirror with the .cm mode, the language package checking every edit, the service's
// drawer previewing the scene in the page, and the API rendering PNG, MP4 and GIF. The wiring lives here; each
// part is its own module. `window.cmEditor` is a small hook for the browser tests (source, time, preview pixels).
import { basicSetup } from 'codemirror';
import { EditorView, keymap } from '@codemirror/view';
import { EditorState, Prec } from '@codemirror/state';
import { indentWithTab } from '@codemirror/commands';
import { lintGutter } from '@codemirror/lint';
import { compile, designFrame, type Program } from '../../src/lang/index.js';
import { cmLanguage } from './cm-language.js';
import { showDiagnostics, jumpTo } from './diagnostics.js';
import { Preview, type PreviewOutcome } from './preview.js';
import { onKeyNeeded, runJob, uploadImages, type Kind } from './api.js';
import { fragmentOf, sourceOfFragment } from './share.js';
import { mountExportPanel } from './export-panel.js';
import type { ExportFormat, ExportRequest } from './export-plan.js';

/** The project's examples/*.cm, bundled at build time (scripts/build-editor.ts). */
declare const __CM_EXAMPLES__: { name: string; source: string }[];
const EXAMPLES = __CM_EXAMPLES__;
const DEFAULT_EXAMPLE = 'wave.cm';
const STORE_SOURCE = 'cmrender.editor.source';
const STORE_ASSETS = 'cmrender.editor.assets';
const CHECK_DELAY_MS = 150;
const NO_WEBGL = 'This browser has no WebGL: the preview comes from the service (/v1/frame).';

performance.mark('cm-editor-start');
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  example: $<HTMLSelectElement>('example'),
  share: $<HTMLButtonElement>('share'),
  upload: $<HTMLInputElement>('upload'),
  diagnostics: $<HTMLUListElement>('diagnostics'),
  assetsBox: $<HTMLDivElement>('assets-box'),
  assets: $<HTMLUListElement>('assets'),
  stage: $<HTMLDivElement>('stage'),
  dropHint: $<HTMLParagraphElement>('drop-hint'),
  play: $<HTMLButtonElement>('play'),
  scrubber: $<HTMLInputElement>('scrubber'),
  time: $<HTMLOutputElement>('time'),
  serverMode: $<HTMLInputElement>('server-mode'),
  previewStatus: $<HTMLParagraphElement>('preview-status'),
  width: $<HTMLInputElement>('width'),
  height: $<HTMLInputElement>('height'),
  fps: $<HTMLInputElement>('fps'),
  duration: $<HTMLInputElement>('duration'),
  format: $<HTMLSelectElement>('format'),
  codec: $<HTMLSelectElement>('codec'),
  quality: $<HTMLInputElement>('quality'),
  renderPng: $<HTMLButtonElement>('render-png'),
  renderMp4: $<HTMLButtonElement>('render-mp4'),
  progress: $<HTMLProgressElement>('job-progress'),
  jobStatus: $<HTMLSpanElement>('job-status'),
  result: $<HTMLDivElement>('result'),
};

const preview = new Preview($<HTMLCanvasElement>('preview'), $<HTMLImageElement>('server-preview'));
performance.mark('cm-drawer-ready');

// ---- state
interface Good {
  program: Program;
  source: string;
  aspect: number;
}
let good: Good | null = null;
let t = 0;
let playing = false;
const assets: Record<string, string> = loadAssets();
let firstPreviewMs: number | null = null;
let previewCount = 0;

function loadAssets(): Record<string, string> {
  try {
    const a = JSON.parse(localStorage.getItem(STORE_ASSETS) ?? '{}') as unknown;
    return a && typeof a === 'object' ? (a as Record<string, string>) : {};
  } catch {
    return {};
  }
}

// ---- the editor
let checkTimer: ReturnType<typeof setTimeout> | undefined;
const view = new EditorView({
  parent: $('editor'),
  state: EditorState.create({
    doc: '',
    extensions: [
      basicSetup,
      cmLanguage(),
      lintGutter(),
      keymap.of([indentWithTab]),
      Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => (void render('frame'), true) }])),
      EditorView.contentAttributes.of({ 'aria-label': '.cm source' }),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged) return;
        // the fragment was this source once; an edited source would reload as the shared one
        if (location.hash.startsWith('#s=')) history.replaceState(null, '', location.pathname + location.search);
        clearTimeout(checkTimer);
        checkTimer = setTimeout(check, CHECK_DELAY_MS);
      }),
      EditorView.theme(
        { '&': { color: '#dfe3ea' }, '.cm-gutters': { background: '#1e2128', borderRight: '1px solid #2d313a' } },
        { dark: true },
      ),
    ],
  }),
});

// an instance with API_KEYS wants a key on renders and uploads: the page says so and keeps the answer (api.ts)
onKeyNeeded((why) => {
  const key = window.prompt(
    `This service needs an API key to render (${why}).\nIt is kept in this browser's local storage.`,
    '',
  );
  return key?.trim() || null;
});

function setSource(source: string): void {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: source } });
  clearTimeout(checkTimer);
  check();
}

/** Compiles the source (the same compile() as the service), shows the diagnostics, keeps the last good program. */
function check(): void {
  const source = view.state.doc.toString();
  try {
    localStorage.setItem(STORE_SOURCE, source);
  } catch {
    // storage full or disabled: the source still lives in the page
  }
  performance.mark('cm-check-start');
  const compiled = compile(source);
  performance.mark('cm-check-end');
  showDiagnostics(view, ui.diagnostics, compiled.diagnostics);
  if (!compiled.ok || !compiled.program) {
    status(
      good ? 'The preview shows the last source without errors.' : 'Fix the errors above to see the preview.',
      false,
    );
    return;
  }
  const program = compiled.program;
  const frame = designFrame(program.sceneAt(0).value);
  good = { program, source, aspect: frame.width / frame.height };
  status(idleStatus(), false);
  ui.scrubber.max = String(program.durationSeconds);
  if (t > program.durationSeconds) t = 0;
  layout();
  requestDraw();
}

// ---- preview
let drawing = false;
let drawAgain = false;

function layout(): void {
  if (!good) return;
  const r = ui.stage.getBoundingClientRect();
  preview.resize({ width: r.width - 2, height: r.height - 2 }, good.aspect, devicePixelRatio);
}

/** What the status line says when all is well. */
const idleStatus = () => (preview.bootError && ui.serverMode.checked ? NO_WEBGL : '');

function status(text: string, bad: boolean): void {
  ui.previewStatus.textContent = text;
  ui.previewStatus.classList.toggle('bad', bad);
}

function showTime(): void {
  const d = good?.program.durationSeconds ?? 0;
  ui.scrubber.value = String(t);
  ui.time.value = `${t.toFixed(2)} s / ${d.toFixed(2)} s`;
  ui.scrubber.setAttribute('aria-valuetext', `${t.toFixed(2)} seconds of ${d.toFixed(2)}`);
}

/** Draws the current time once; calls made while a draw runs collapse into one more draw after it. */
function requestDraw(): void {
  showTime();
  if (drawing) {
    drawAgain = true;
    return;
  }
  void drawLoop();
}

async function drawLoop(): Promise<void> {
  drawing = true;
  try {
    do {
      drawAgain = false;
      if (!good) break;
      const input = {
        program: good.program,
        source: good.source,
        aspect: good.aspect,
        t,
        playing,
        assets: assetsUsedBy(good.source),
      };
      let out: PreviewOutcome;
      try {
        out = ui.serverMode.checked ? await preview.drawServer(input) : await preview.drawLocal(input);
      } catch (e) {
        out = { ok: false, message: e instanceof Error ? e.message : String(e) };
      }
      if (out.ok) {
        previewCount++;
        if (firstPreviewMs === null) {
          firstPreviewMs = performance.now();
          performance.mark('cm-first-preview');
        }
        if (ui.previewStatus.classList.contains('bad')) status(idleStatus(), false);
      } else status(out.message, true);
    } while (drawAgain);
  } finally {
    drawing = false;
  }
}

new ResizeObserver(() => {
  layout();
  requestDraw();
}).observe(ui.stage);

// ---- time
let lastTick = 0;
function tick(now: number): void {
  if (!playing) return;
  const d = good?.program.durationSeconds ?? 0;
  if (d > 0) {
    t = (t + (now - lastTick) / 1000) % d;
    requestDraw();
  }
  lastTick = now;
  requestAnimationFrame(tick);
}

function setPlaying(on: boolean): void {
  playing = on;
  ui.play.textContent = on ? 'Pause' : 'Play';
  ui.play.setAttribute('aria-pressed', String(on));
  if (on) {
    lastTick = performance.now();
    requestAnimationFrame(tick);
  }
}

ui.play.onclick = () => setPlaying(!playing);
ui.scrubber.oninput = () => {
  t = Number(ui.scrubber.value);
  requestDraw();
};
ui.serverMode.onchange = () => requestDraw();

// ---- rendering through the API
/** What each button makes, by the chosen still format and video codec (an option's data-label, else its text). */
const selected = (el: HTMLSelectElement) => {
  const o = el.selectedOptions[0];
  return o?.dataset.label ?? o?.textContent ?? el.value;
};
const ends = (): Record<Kind, string> => ({ frame: selected(ui.format), video: selected(ui.codec), gif: 'GIF' });
function labelButtons(): void {
  ui.renderPng.textContent = `Render ${selected(ui.format)}`;
  ui.renderMp4.textContent = `Render ${selected(ui.codec)}`;
}
ui.format.onchange = labelButtons;
ui.codec.onchange = labelButtons;
let rendering: AbortController | null = null;

function numberField(el: HTMLInputElement): number | undefined {
  const v = el.value.trim();
  return v === '' ? undefined : Number(v);
}

async function render(kind: Kind): Promise<void> {
  rendering?.abort();
  const ac = new AbortController();
  rendering = ac;
  const ENDS = ends();
  const params: Record<string, number | string> = {};
  const put = (k: string, v: number | undefined) => v !== undefined && Number.isFinite(v) && (params[k] = v);
  const quality = numberField(ui.quality);
  put('width', numberField(ui.width));
  put('height', numberField(ui.height));
  // the exact preview time: the PNG is the frame on screen
  if (kind === 'frame') {
    put('at', t);
    // a PNG is lossless: quality is for JPEG and WebP only (the service refuses it on a PNG)
    if (ui.format.value !== 'png') {
      params.format = ui.format.value;
      put('quality', quality);
    }
  } else {
    put('fps', numberField(ui.fps));
    put('duration', numberField(ui.duration));
    if (kind === 'video') {
      if (ui.codec.value !== 'h264') params.codec = ui.codec.value;
      put('quality', quality);
    }
  }
  ui.progress.hidden = false;
  ui.progress.removeAttribute('value');
  ui.jobStatus.textContent = `${ENDS[kind]}: queued`;
  ui.jobStatus.classList.remove('bad');
  try {
    const source = view.state.doc.toString();
    const end = await runJob(
      kind,
      { source, params, assets: assetsUsedBy(source) },
      (p) => {
        const percent = p.progress !== undefined ? ` ${Math.round(p.progress * 100)}%` : '';
        const queued = p.queuePosition !== undefined && p.queuePosition > 0;
        ui.jobStatus.textContent = `${ENDS[kind]}: ${queued ? `queue position ${p.queuePosition}` : `rendering${percent}`}`;
        if (p.progress !== undefined) ui.progress.value = p.progress;
      },
      ac.signal,
    );
    if (rendering !== ac) return;
    ui.progress.hidden = true;
    if (end.status === 'ready') {
      ui.jobStatus.textContent = `${ENDS[kind]}: ready${end.width ? ` (${end.width}×${end.height})` : ''}`;
      showResult(kind, end.url, ENDS[kind]);
    } else {
      ui.jobStatus.classList.add('bad');
      ui.jobStatus.replaceChildren(`${ENDS[kind]} failed: ${end.message}`);
      const at = end.diagnostics?.find((d) => d.line !== undefined);
      if (at) {
        const go = document.createElement('button');
        go.type = 'button';
        go.textContent = `line ${at.line}`;
        go.onclick = () => jumpTo(view, at.line!, at.column ?? 1);
        ui.jobStatus.append(' ', go);
      }
    }
  } catch (e) {
    if (rendering !== ac) return;
    ui.progress.hidden = true;
    ui.jobStatus.classList.add('bad');
    ui.jobStatus.textContent = `${ENDS[kind]} failed: ${e instanceof Error ? e.message : String(e)}`;
  }
}

function showResult(kind: Kind, url: string, what: string): void {
  let media: HTMLElement;
  if (kind === 'video') {
    const v = document.createElement('video');
    v.controls = true;
    v.loop = true;
    v.muted = true;
    v.autoplay = true;
    v.src = url;
    v.setAttribute('aria-label', `Rendered ${what}`);
    media = v;
  } else {
    const img = document.createElement('img');
    img.src = url;
    img.alt = kind === 'frame' ? `Rendered ${what} at t = ${t.toFixed(2)} s` : 'Rendered GIF';
    media = img;
  }
  const link = document.createElement('a');
  link.href = url;
  link.download = url.slice(url.lastIndexOf('/') + 1);
  link.textContent = `Download ${link.download}`;
  ui.result.replaceChildren(media, link);
}

$<HTMLButtonElement>('render-png').onclick = () => void render('frame');
$<HTMLButtonElement>('render-mp4').onclick = () => void render('video');
$<HTMLButtonElement>('render-gif').onclick = () => void render('gif');
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !view.hasFocus) {
    e.preventDefault();
    void render('frame');
  }
});

// ---- export in the browser
const exporter = mountExportPanel({
  current: () => (good ? { program: good.program, source: good.source } : null),
  request: (format: ExportFormat): ExportRequest => ({
    format,
    width: numberField(ui.width),
    height: numberField(ui.height),
    fps: numberField(ui.fps),
    duration: numberField(ui.duration),
    at: t,
  }),
  assets: assetsUsedBy,
  renderOnServer: (format) => {
    if (format === 'png' || format === 'gif') return void render(format === 'png' ? 'frame' : 'gif');
    ui.codec.value = format === 'mp4' ? 'h264' : 'vp9';
    labelButtons();
    void render('video');
  },
});

// ---- images
/**
 * The uploads whose path the source names: a render carries those (every other one would only risk an
 * `unknown_asset` once it expires).
 */
function assetsUsedBy(source: string): Record<string, string> {
  return Object.fromEntries(Object.entries(assets).filter(([path]) => source.includes(JSON.stringify(path))));
}

function saveAssets(): void {
  try {
    localStorage.setItem(STORE_ASSETS, JSON.stringify(assets));
  } catch {
    // storage disabled: the mapping lives in the page
  }
  showAssets();
}

/** Uploads expire after 24 hours: forget those the service no longer has. */
async function forgetExpiredAssets(): Promise<void> {
  const gone = await Promise.all(
    Object.entries(assets).map(async ([path, key]) => {
      const r = await fetch(`/v1/assets/${key}`, { method: 'HEAD' }).catch(() => null);
      return r?.status === 404 ? path : null;
    }),
  );
  if (!gone.some(Boolean)) return;
  for (const p of gone) if (p) delete assets[p];
  saveAssets();
  preview.invalidate();
  requestDraw();
}

function showAssets(): void {
  const entries = Object.entries(assets);
  ui.assetsBox.hidden = entries.length === 0;
  ui.assets.replaceChildren(
    ...entries.map(([path, key]) => {
      const li = document.createElement('li');
      const code = document.createElement('code');
      code.textContent = path;
      li.append(code, ` → ${key}`);
      return li;
    }),
  );
}

async function addImages(files: readonly File[]): Promise<void> {
  if (files.length === 0) return;
  status(`Uploading ${files.map((f) => f.name).join(', ')}…`, false);
  try {
    const keys = await uploadImages(files);
    for (const [name, key] of Object.entries(keys)) assets[`/img/${name}`] = key;
    saveAssets();
    status(
      `Uploaded: ${Object.keys(keys)
        .map((n) => `/img/${n}`)
        .join(', ')}`,
      false,
    );
    preview.invalidate();
    requestDraw();
  } catch (e) {
    status(`Upload failed: ${e instanceof Error ? e.message : String(e)}`, true);
  }
}

ui.upload.onchange = () => {
  void addImages([...(ui.upload.files ?? [])]);
  ui.upload.value = '';
};
for (const target of [document.body]) {
  target.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    ui.stage.classList.add('dragging');
    ui.dropHint.hidden = false;
  });
  target.addEventListener('dragleave', () => {
    ui.stage.classList.remove('dragging');
    ui.dropHint.hidden = true;
  });
  target.addEventListener('drop', (e) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    ui.stage.classList.remove('dragging');
    ui.dropHint.hidden = true;
    void addImages([...e.dataTransfer.files]);
  });
}

// ---- examples and sharing
for (const ex of EXAMPLES) ui.example.append(new Option(ex.name, ex.name));
ui.example.prepend(new Option('Choose an example…', ''));
ui.example.value = '';
ui.example.onchange = () => {
  const ex = EXAMPLES.find((e) => e.name === ui.example.value);
  if (ex) {
    t = 0;
    setSource(ex.source);
  }
};

ui.share.onclick = async () => {
  const hash = await fragmentOf(view.state.doc.toString());
  history.replaceState(null, '', hash);
  try {
    await navigator.clipboard.writeText(location.href);
    ui.share.textContent = 'Link copied';
  } catch {
    ui.share.textContent = 'Link in the address bar';
  }
  setTimeout(() => (ui.share.textContent = 'Copy share link'), 2000);
};

async function initialSource(): Promise<string> {
  const shared = await sourceOfFragment(location.hash);
  if (shared !== null) return shared;
  const stored = localStorage.getItem(STORE_SOURCE);
  if (stored) return stored;
  return (EXAMPLES.find((e) => e.name === DEFAULT_EXAMPLE) ?? EXAMPLES[0])?.source ?? '';
}

// ---- the test hook
declare global {
  interface Window {
    cmEditor: {
      view: EditorView;
      setSource(source: string): void;
      readonly source: string;
      /** the preview time in seconds */
      time: number;
      /** performance.now() of the first drawn preview, null before */
      readonly firstPreviewMs: number | null;
      /** how many previews have been drawn */
      readonly previews: number;
      /** whether a draw is running */
      readonly drawing: boolean;
      /** RGBA of the preview canvas (top row first) as base64, with its size */
      previewPixels(): { width: number; height: number; rgba: string };
      /** an export in this browser, the buttons' path, kept in memory: the file's bytes and type */
      export(request: ExportRequest): Promise<{ bytes: Uint8Array; type: string; codec?: string }>;
    };
  }
}

window.cmEditor = {
  view,
  setSource,
  get source() {
    return view.state.doc.toString();
  },
  get time() {
    return t;
  },
  set time(v: number) {
    t = v;
    requestDraw();
  },
  get firstPreviewMs() {
    return firstPreviewMs;
  },
  get previews() {
    return previewCount;
  },
  get drawing() {
    return drawing;
  },
  previewPixels() {
    const px = preview.api?.pixels() ?? new Uint8Array(0);
    let s = '';
    for (let i = 0; i < px.length; i += 0x8000) s += String.fromCharCode(...px.subarray(i, i + 0x8000));
    return { width: preview.width, height: preview.height, rgba: btoa(s) };
  },
  async export(request) {
    const r = await exporter.exportToMemory(request);
    return { bytes: r.bytes!, type: r.type, codec: r.codec };
  },
};

showAssets();
void forgetExpiredAssets();
if (preview.bootError) {
  ui.serverMode.checked = true;
  status(NO_WEBGL, false);
  console.warn(preview.bootError);
}
setSource(await initialSource());
