// The editor page at `/`: CodeMirror with the .cm mode, the language package checking every edit, the service's
// drawer previewing the scene in the page, the API rendering PNG, video and GIF, and the export in the browser.
// The wiring lives here; each part is its own module (playback.ts, render-panel.ts, export-panel.ts, assets.ts,
// examples.ts, source-files.ts, drop.ts, share.ts, format-source.ts, open-file.ts, params-panel.ts). `window.cmEditor` is a small hook for the browser tests and
// automation (source, time, preview pixels, export).
import { basicSetup } from 'codemirror';
import { EditorView, keymap } from '@codemirror/view';
import { EditorState, Prec } from '@codemirror/state';
import { indentWithTab, isolateHistory } from '@codemirror/commands';
import { lintGutter } from '@codemirror/lint';
import { compile, describeScene, designFrame } from '../../src/lang/index.js';
import { cmLanguage } from './cm-language.js';
import { showDiagnostics } from './diagnostics.js';
import { Preview } from './preview.js';
import { onKeyNeeded } from './api.js';
import { argsOfFragment, carriesSource, fragmentOf, sourceOfFragment } from './share.js';
import { mountParamsPanel } from './params-panel.js';
import { Playback, type GoodScene } from './playback.js';
import { mountRenderPanel } from './render-panel.js';
import { mountExportPanel } from './export-panel.js';
import { mountBatchPanel } from './batch-panel.js';
import type { ExportRequest } from './export-plan.js';
import { Uploads } from './assets.js';
import { defaultExample, mountExamples, showExampleOf } from './examples.js';
import { mountSourceFiles } from './source-files.js';
import { acceptDrops } from './drop.js';
import { formatView } from './format-source.js';
import { OpenFile, openedByCli } from './open-file.js';

const STORE_SOURCE = 'cmrender.editor.source';
const CHECK_DELAY_MS = 150;
const NO_WEBGL = 'This browser has no WebGL: the preview comes from the service (/v1/frame).';

performance.mark('cm-editor-start');
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  share: $<HTMLButtonElement>('share'),
  format: $<HTMLButtonElement>('format-source'),
  formatNote: $<HTMLSpanElement>('format-note'),
  diagnostics: $<HTMLUListElement>('diagnostics'),
  serverMode: $<HTMLInputElement>('server-mode'),
  previewStatus: $<HTMLParagraphElement>('preview-status'),
};

const preview = new Preview($<HTMLCanvasElement>('preview'), $<HTMLImageElement>('server-preview'));

// the scene's parameters: each change compiles and redraws at once (no typing delay to wait for)
const params = mountParamsPanel($('params'), () => {
  clearTimeout(checkTimer);
  check();
});
/** The panel's arguments, or undefined when none is set (the scene's defaults, as without args). */
const currentArgs = () => {
  const a = params.args();
  return Object.keys(a).length > 0 ? a : undefined;
};
performance.mark('cm-drawer-ready');

/** The last source without errors, compiled. */
let good: GoodScene | null = null;

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
      Prec.highest(
        keymap.of([
          { key: 'Mod-Enter', run: () => (void panel.render('frame'), true) },
          { key: 'Shift-Alt-f', run: () => (format(), true) },
        ]),
      ),
      EditorView.contentAttributes.of({ 'aria-label': '.cm source' }),
      EditorView.updateListener.of((u) => {
        if (!u.docChanged) return;
        // a format's note is about the text it formatted
        ui.formatNote.textContent = '';
        // the fragment was this source once; an edited source would reload as the shared one
        if (carriesSource(location.hash)) history.replaceState(null, '', location.pathname + location.search);
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
  // a source set whole is its own undo step, never joined to the edit before or after it
  view.dispatch({
    changes: { from: 0, to: view.state.doc.length, insert: source },
    annotations: isolateHistory.of('full'),
  });
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
  showExampleOf(source);
  performance.mark('cm-check-start');
  const args = currentArgs();
  const compiled = compile(source, { args });
  performance.mark('cm-check-end');
  showDiagnostics(view, ui.diagnostics, compiled.diagnostics);
  // the panel follows the scene a render would use, and shows what is wrong with its args under their controls
  params.show(describeScene(source, args).scene);
  params.problems(compiled.argProblems);
  if (!compiled.ok || !compiled.program) {
    status(
      good ? 'The preview shows the last source without errors.' : 'Fix the errors above to see the preview.',
      false,
    );
    return;
  }
  const program = compiled.program;
  const first = program.sceneAt(0);
  const frame = designFrame(first.value);
  good = { program, source, aspect: frame.width / frame.height, still: first.timeFree, ...(args ? { args } : {}) };
  status(idleStatus(), false);
  playback.sceneChanged(good);
}

/** What the status line says when all is well. */
const idleStatus = () => (preview.bootError && ui.serverMode.checked ? NO_WEBGL : '');

/** Format (Shift+Alt+F, the Format button): fmt's layout, or a note saying why not (kept until the next edit). */
function format(): void {
  const note = formatView(view);
  ui.formatNote.textContent = note.text;
  ui.formatNote.classList.toggle('bad', note.bad);
  view.focus();
}

function status(text: string, bad: boolean): void {
  ui.previewStatus.textContent = text;
  ui.previewStatus.classList.toggle('bad', bad);
}

// ---- the parts
const uploads = new Uploads({
  status,
  changed: () => {
    preview.invalidate();
    playback.requestDraw();
  },
});
const assetsUsedBy = (source: string) => uploads.usedBy(source);

const playback = new Playback({
  preview,
  scene: () => good,
  assets: assetsUsedBy,
  drawn: (out) => {
    if (!out.ok) status(out.message, true);
    else if (ui.previewStatus.classList.contains('bad')) status(idleStatus(), false);
  },
});

const panel = mountRenderPanel({ view, assets: assetsUsedBy, time: () => playback.t, args: currentArgs });
document.addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && !view.hasFocus) {
    e.preventDefault();
    void panel.render('frame');
  }
});

mountBatchPanel({
  source: () => view.state.doc.toString(),
  assets: assetsUsedBy,
  fields: () => panel.fields(),
  time: () => playback.t,
});

const exporter = mountExportPanel({
  current: () => (good ? { program: good.program, source: good.source } : null),
  request: (format): ExportRequest => ({ format, ...panel.fields(), at: playback.t }),
  assets: assetsUsedBy,
  renderOnServer: (format) => {
    if (format === 'png' || format === 'gif') return void panel.render(format === 'png' ? 'frame' : 'gif');
    panel.useCodec(format === 'mp4' ? 'h264' : 'vp9');
    void panel.render('video');
  },
});

const openSource = (source: string) => {
  playback.t = 0;
  setSource(source);
};
mountExamples(openSource, (f) => uploads.add(f));
const files = mountSourceFiles({ view, setSource: openSource, status });
acceptDrops({ openSource: (f) => void files.open(f), addImages: (f) => void uploads.add(f) });

ui.format.onclick = format;

ui.share.onclick = async () => {
  const hash = await fragmentOf(view.state.doc.toString(), currentArgs());
  history.replaceState(null, '', hash);
  try {
    await navigator.clipboard.writeText(location.href);
    ui.share.textContent = 'Link copied';
  } catch {
    ui.share.textContent = 'Link in the address bar';
  }
  setTimeout(() => (ui.share.textContent = 'Copy share link'), 2000);
};

// opened by `cmrender open FILE`: the file is the source (at every load), followed as it changes on disk
const openFile = openedByCli() ? new OpenFile({ setSource, status }) : null;

/** The page's first source, and the stored one a share link's source replaces (kept one undo step back). */
async function initialSource(): Promise<{ source: string; kept?: string }> {
  if (openFile) {
    const text = await openFile.read();
    if (text !== null) return { source: text };
    status('The file cmrender open serves cannot be read now; the page shows it when it can.', true);
  }
  const stored = localStorage.getItem(STORE_SOURCE);
  const shared = await sourceOfFragment(location.hash);
  // any page can open a link to this editor: the work stored here is never lost to it
  if (shared !== null) return stored && stored !== shared ? { source: shared, kept: stored } : { source: shared };
  if (stored) return { source: stored };
  return { source: defaultExample() };
}

// ---- the test and automation hook
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
      /**
       * An export in this browser, the buttons' path, kept in memory: the file's bytes and MIME type (and the video
       * codec used). Rejects with the reason in words (a field out of range, no encoder, a drawing error).
       */
      export(request: ExportRequest): Promise<{ bytes: Uint8Array; type: string; codec?: string }>;
      /** Sets the scene's arguments (the parameters panel follows; the preview redraws with them). */
      setArgs(args: Record<string, unknown>): void;
      /** The scene's arguments the panel holds (those set or changed from their defaults). */
      args(): Record<string, unknown>;
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
    return playback.t;
  },
  set time(v: number) {
    playback.t = v;
    playback.requestDraw();
  },
  get firstPreviewMs() {
    return playback.firstPreviewMs;
  },
  get previews() {
    return playback.previews;
  },
  get drawing() {
    return playback.drawing;
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
  setArgs: (args) => params.setArgs(args),
  args: () => params.args(),
};

void uploads.forgetExpired();
if (preview.bootError) {
  ui.serverMode.checked = true;
  status(NO_WEBGL, false);
  console.warn(preview.bootError);
}
// a share link's arguments (read before the source is set: an edit takes the fragment away), once its source is in
const sharedArgs = argsOfFragment(location.hash);
const first = await initialSource();
// a share link's source comes in as an edit over the stored work: one undo brings that back
if (first.kept !== undefined) setSource(first.kept);
setSource(first.source);
if (first.kept !== undefined)
  status("This is the link's source: your previous source is one undo away (Ctrl+Z).", false);
if (sharedArgs) params.setArgs(sharedArgs);
openFile?.follow();
