// Files dropped anywhere on the page: a .cm file opens as the source, images upload as /img/<name>.
import { isSourceFile } from './source-files.js';

export interface DropDeps {
  openSource(file: File): void;
  addImages(files: File[]): void;
}

export function acceptDrops(deps: DropDeps): void {
  const stage = document.getElementById('stage')!;
  const hint = document.getElementById('drop-hint')!;
  const shown = (on: boolean) => {
    stage.classList.toggle('dragging', on);
    hint.hidden = !on;
  };
  document.body.addEventListener('dragover', (e) => {
    if (!e.dataTransfer?.types.includes('Files')) return;
    e.preventDefault();
    shown(true);
  });
  document.body.addEventListener('dragleave', () => shown(false));
  document.body.addEventListener('drop', (e) => {
    if (!e.dataTransfer?.files.length) return;
    e.preventDefault();
    shown(false);
    const files = [...e.dataTransfer.files];
    const source = files.find(isSourceFile);
    if (source) deps.openSource(source);
    const images = files.filter((f) => !isSourceFile(f));
    if (images.length) deps.addImages(images);
  });
}
