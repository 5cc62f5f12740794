// The source as a file: open a .cm file (the Open button or a drop, drop.ts), save it (the browser's save dialog
// where it has one, else a download), copy it to the clipboard, clear it (undo brings it back: the clear is an
// ordinary edit).
import type { EditorView } from '@codemirror/view';
import { isolateHistory } from '@codemirror/commands';
import { saveBlob } from './save-file.js';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** The largest source the service takes (LIMITS.sourceMaxChars, src/contract/limits.ts), in bytes of a file. */
const MAX_FILE_BYTES = 4 * 65536;

/** Whether a file is a scene source, by its name. */
export const isSourceFile = (f: File) => /\.cm$/i.test(f.name);

export interface SourceFilesDeps {
  view: EditorView;
  /** replaces the whole source (an edit undo can take back) */
  setSource(source: string): void;
  status(text: string, bad: boolean): void;
}

export interface SourceFiles {
  open(file: File): Promise<void>;
}

export function mountSourceFiles(deps: SourceFilesDeps): SourceFiles {
  const input = $<HTMLInputElement>('open-source');
  const flash = (b: HTMLButtonElement, text: string) => {
    const was = b.textContent;
    b.textContent = text;
    setTimeout(() => (b.textContent = was), 2000);
  };

  async function open(file: File): Promise<void> {
    if (file.size > MAX_FILE_BYTES) {
      deps.status(`${file.name} is ${file.size} bytes: too large for a scene source`, true);
      return;
    }
    deps.setSource(await file.text());
    deps.status(`Opened ${file.name}`, false);
  }

  input.onchange = () => {
    const f = input.files?.[0];
    input.value = '';
    if (f) void open(f);
  };
  const save = $<HTMLButtonElement>('save-source');
  save.onclick = async () => {
    const blob = new Blob([deps.view.state.doc.toString()], { type: 'text/plain' });
    try {
      if (await saveBlob(blob, 'scene.cm', 'cm')) flash(save, 'Saved');
    } catch (e) {
      deps.status(`Save failed: ${e instanceof Error ? e.message : String(e)}`, true);
    }
  };
  const copy = $<HTMLButtonElement>('copy-source');
  copy.onclick = async () => {
    try {
      await navigator.clipboard.writeText(deps.view.state.doc.toString());
      flash(copy, 'Copied');
    } catch {
      flash(copy, 'Copy refused');
    }
  };
  $<HTMLButtonElement>('clear-source').onclick = () => {
    // its own undo step: joined to an edit made just before (a source set a moment ago), undo would skip past it
    deps.view.dispatch({
      changes: { from: 0, to: deps.view.state.doc.length, insert: '' },
      annotations: isolateHistory.of('full'),
    });
    deps.view.focus();
  };
  return { open };
}
