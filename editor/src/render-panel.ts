// The render panel: its fields (size, rate, length, still format, video codec, quality) and the server render of a
// PNG, a video or a GIF through the API (queue position, progress, the result shown with its download link, a
// failure with the line it names). The in-browser export (export-panel.ts) reads the same fields.
import { sceneFileName } from './file-name.js';
import type { EditorView } from '@codemirror/view';
import { jumpTo } from './diagnostics.js';
import { runJob, type Kind } from './api.js';

export interface RenderPanelDeps {
  view: EditorView;
  /** the uploads a source names: in-source path -> asset key */
  assets(source: string): Record<string, string>;
  /** the preview's time: a PNG is the frame on screen */
  time(): number;
  /** the parameters panel's arguments (undefined: none set) */
  args(): Record<string, unknown> | undefined;
}

export interface RenderPanel {
  render(kind: Kind): Promise<void>;
  /** the panel's size, rate and length (absent: the service's defaults) */
  fields(): { width?: number; height?: number; fps?: number; duration?: number };
  /** selects a video codec by its option value (h264, h265, vp9, av1, prores) */
  useCodec(codec: string): void;
}

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function numberField(el: HTMLInputElement): number | undefined {
  const v = el.value.trim();
  return v === '' ? undefined : Number(v);
}

/** What each button makes, by the chosen still format and video codec (an option's data-label, else its text). */
const selected = (el: HTMLSelectElement) => {
  const o = el.selectedOptions[0];
  return o?.dataset.label ?? o?.textContent ?? el.value;
};

export function mountRenderPanel(deps: RenderPanelDeps): RenderPanel {
  const ui = {
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
  const ends = (): Record<Kind, string> => ({ frame: selected(ui.format), video: selected(ui.codec), gif: 'GIF' });
  function labelButtons(): void {
    ui.renderPng.textContent = `Render ${selected(ui.format)}`;
    ui.renderMp4.textContent = `Render ${selected(ui.codec)}`;
  }
  ui.format.onchange = labelButtons;
  ui.codec.onchange = labelButtons;
  let rendering: AbortController | null = null;

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
      put('at', deps.time());
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
      const source = deps.view.state.doc.toString();
      const args = deps.args();
      const end = await runJob(
        kind,
        { source, params, assets: deps.assets(source), ...(args ? { args } : {}) },
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
          go.onclick = () => jumpTo(deps.view, at.line!, at.column ?? 1);
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
      img.alt = kind === 'frame' ? `Rendered ${what} at t = ${deps.time().toFixed(2)} s` : 'Rendered GIF';
      media = img;
    }
    const link = document.createElement('a');
    link.href = url;
    // named after the scene, not the job's id: `title-card.mp4`
    link.download = sceneFileName(deps.view.state.doc.toString(), url.slice(url.lastIndexOf('.') + 1));
    link.textContent = `Download ${link.download}`;
    ui.result.replaceChildren(media, link);
    // the result is below the preview and the panels: bring it into view (Chromium also pauses a muted autoplaying
    // video while it is off screen)
    ui.result.scrollIntoView({ block: 'nearest' });
  }

  $<HTMLButtonElement>('render-png').onclick = () => void render('frame');
  $<HTMLButtonElement>('render-mp4').onclick = () => void render('video');
  $<HTMLButtonElement>('render-gif').onclick = () => void render('gif');

  return {
    render,
    fields: () => ({
      width: numberField(ui.width),
      height: numberField(ui.height),
      fps: numberField(ui.fps),
      duration: numberField(ui.duration),
    }),
    useCodec(codec) {
      ui.codec.value = codec;
      labelButtons();
    },
  };
}
