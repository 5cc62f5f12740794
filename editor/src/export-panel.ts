// The page's "Export in browser" row: MP4, WebM, GIF and PNG buttons at the render panel's size, rate and length, a
// progress bar with frames done and an estimate, a Cancel that stops at once, the file saved where the user picked
// (streamed into it) or, without a save dialog, shown and offered as a download. Where the browser cannot encode,
// it says so and offers the server render. `exportToMemory` is the same path for window.cmEditor.export.
import type { Program } from '../../src/lang/index.js';
import { BrowserExportError, planExport, type ExportFormat, type ExportRequest } from './export-plan.js';
import { runExport, type ExportProgress } from './export.js';
import { encodableCodecs } from './export-video.js';
import { download, pickSaveFile } from './save-file.js';
import { sceneFileName } from './file-name.js';
import type { Destination, ExportResult } from './export-types.js';

export interface ExportPanelDeps {
  /** the last program without errors and its source, or null */
  current(): { program: Program; source: string } | null;
  /** the render panel's fields (and the preview time, for a PNG) as a request of `format` */
  request(format: ExportFormat): ExportRequest;
  /** the uploads `source` names: in-source path -> asset key */
  assets(source: string): Record<string, string>;
  /** starts the service's render of the same thing */
  renderOnServer(format: ExportFormat): void;
}

const LABEL: Record<ExportFormat, string> = { mp4: 'MP4', webm: 'WebM', gif: 'GIF', png: 'PNG' };
const TYPE: Record<ExportFormat, string> = { mp4: 'video/mp4', webm: 'video/webm', gif: 'image/gif', png: 'image/png' };

export interface ExportPanel {
  /** An export kept in memory: the file's bytes and type (the automation hook's path). */
  exportToMemory(request: ExportRequest, signal?: AbortSignal): Promise<ExportResult>;
  /** Stops the running export, if any. */
  cancel(): void;
  readonly running: boolean;
}

export function mountExportPanel(deps: ExportPanelDeps): ExportPanel {
  const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
  const progress = $<HTMLProgressElement>('export-progress');
  const statusEl = $<HTMLSpanElement>('export-status');
  const cancelBtn = $<HTMLButtonElement>('export-cancel');
  const result = $<HTMLDivElement>('result');
  let active: AbortController | null = null;
  let activeLabel = '';

  const say = (text: string, bad = false) => {
    statusEl.textContent = text;
    statusEl.classList.toggle('bad', bad);
  };
  const showProgress = (label: string, p: ExportProgress) => {
    progress.hidden = false;
    progress.value = p.total > 0 ? p.done / p.total : 0;
    const eta = p.etaSeconds === null ? '' : ` · about ${Math.ceil(p.etaSeconds)} s left`;
    say(`${label}: frame ${p.done} of ${p.total}${eta}`);
  };

  async function run(request: ExportRequest, dest: Destination, signal: AbortSignal, label: string) {
    const now = deps.current();
    if (!now) throw new BrowserExportError('fix the errors in the source first');
    return runExport({
      program: now.program,
      request,
      assets: deps.assets(now.source),
      dest,
      signal,
      onProgress: (p) => !signal.aborted && showProgress(label, p),
    });
  }

  function begin(label: string): AbortController {
    active?.abort(new DOMException('Export cancelled', 'AbortError'));
    const ac = new AbortController();
    active = ac;
    activeLabel = label;
    cancelBtn.hidden = false;
    return ac;
  }
  function end(ac: AbortController) {
    if (active !== ac) return;
    active = null;
    cancelBtn.hidden = true;
    progress.hidden = true;
  }

  function offerServer(format: ExportFormat, message: string) {
    say(`${LABEL[format]} export: ${message} `, true);
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = `Render ${LABEL[format]} on the server`;
    b.onclick = () => deps.renderOnServer(format);
    statusEl.append(b);
  }

  async function onButton(format: ExportFormat) {
    const label = LABEL[format];
    const request = deps.request(format);
    const name = sceneFileName(deps.current()?.source ?? '', format);
    // the codec check first, so a browser without one says so before any dialog
    if (format === 'mp4' || format === 'webm') {
      const now = deps.current();
      if (now) {
        let plan;
        try {
          plan = planExport(now.program, request);
        } catch (e) {
          say(`${label} export: ${e instanceof Error ? e.message : String(e)}`, true);
          return;
        }
        if ((await encodableCodecs(plan)).length === 0) {
          offerServer(format, `this browser cannot encode ${label} (WebCodecs).`);
          return;
        }
      }
    }
    let writable: FileSystemWritableFileStream | null = null;
    try {
      writable = await pickSaveFile(name, TYPE[format], format);
    } catch {
      // the dialog was dismissed, or cannot open here (no user activation left, a headless browser): the export is
      // made in memory and offered as a download instead, never lost
      writable = null;
    }
    const ac = begin(label);
    say(`${label}: starting`);
    try {
      const dest: Destination = writable ? { kind: 'file', writable } : { kind: 'memory' };
      const started = performance.now();
      const r = await run(request, dest, ac.signal, label);
      const secs = ((performance.now() - started) / 1000).toFixed(1);
      if (r.bytes) {
        const blob = new Blob([r.bytes as BlobPart], { type: r.type });
        showResult(format, blob, name);
        say(`${label}: done in ${secs} s${r.codec ? ` (${r.codec})` : ''}, ${formatBytes(blob.size)}`);
      } else say(`${label}: saved in ${secs} s${r.codec ? ` (${r.codec})` : ''}`);
    } catch (e) {
      // cancelled: Cancel said so at once, or a newer export owns the status line
      if (ac.signal.aborted) return;
      else if (e instanceof BrowserExportError) offerServer(format, e.message);
      else say(`${label} export failed: ${e instanceof Error ? e.message : String(e)}`, true);
    } finally {
      end(ac);
    }
  }

  function showResult(format: ExportFormat, blob: Blob, name: string) {
    const url = URL.createObjectURL(blob);
    let media: HTMLElement;
    if (format === 'mp4' || format === 'webm') {
      const v = document.createElement('video');
      Object.assign(v, { controls: true, loop: true, muted: true, autoplay: true, src: url });
      v.setAttribute('aria-label', `Exported ${LABEL[format]}`);
      media = v;
    } else {
      const img = document.createElement('img');
      img.src = url;
      img.alt = `Exported ${LABEL[format]}`;
      media = img;
    }
    const link = document.createElement('a');
    link.href = url;
    link.textContent = `Save ${name}`;
    link.onclick = (e) => {
      e.preventDefault();
      download(blob, name);
    };
    result.replaceChildren(media, link);
  }

  cancelBtn.onclick = () => {
    if (!active) return;
    active.abort(new DOMException('Export cancelled', 'AbortError'));
    // the loop stops at its next await; the page says so at once
    say(`${activeLabel}: cancelled`);
    end(active);
  };
  for (const b of document.querySelectorAll<HTMLButtonElement>('.export button[data-format]'))
    b.onclick = () => void onButton(b.dataset.format as ExportFormat);

  return {
    async exportToMemory(request, signal) {
      const label = LABEL[request?.format] ?? String(request?.format);
      const ac = begin(label);
      signal?.addEventListener('abort', () => ac.abort(signal.reason), { once: true });
      try {
        return await run(request, { kind: 'memory' }, ac.signal, label);
      } finally {
        end(ac);
      }
    },
    cancel: () => cancelBtn.click(),
    get running() {
      return active !== null;
    },
  };
}

function formatBytes(n: number): string {
  return n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MB` : `${Math.ceil(n / 1024)} KB`;
}
