// The Example menu: the project's examples/*.cm, bundled at build time (scripts/build-editor.ts) with the images
// they name; choosing one uploads its images, then replaces the source and starts its preview at t = 0. The menu
// names the example the editor holds, whether chosen or opened with the page.

/** The project's examples/*.cm, bundled at build time with the images they name. */
declare const __CM_EXAMPLES__: {
  name: string;
  source: string;
  images?: { path: string; name: string; type: string; base64: string }[];
}[];
export const EXAMPLES = __CM_EXAMPLES__;
/** The example a fresh page opens with (the homepage example). */
export const DEFAULT_EXAMPLE = 'wave.cm';

export function defaultExample(): string {
  return (EXAMPLES.find((e) => e.name === DEFAULT_EXAMPLE) ?? EXAMPLES[0])?.source ?? '';
}

/**
 * Shows in the menu the example the editor holds (the page opens on one, and a chosen one stays named), or the
 * menu's prompt once the source is no longer an example's own text.
 */
export function showExampleOf(source: string): void {
  const select = document.getElementById('example') as HTMLSelectElement | null;
  if (select) select.value = EXAMPLES.find((e) => e.source === source)?.name ?? '';
}

export function mountExamples(open: (source: string) => void, addImages: (files: File[]) => Promise<void>): void {
  const select = document.getElementById('example') as HTMLSelectElement;
  for (const ex of EXAMPLES) select.append(new Option(ex.name, ex.name));
  select.prepend(new Option('Choose an example…', ''));
  select.value = '';
  select.onchange = async () => {
    const ex = EXAMPLES.find((e) => e.name === select.value);
    if (!ex) return;
    // an example's own images are uploaded and mapped to its paths first, so its preview and its renders draw them
    // (never an image of the same name uploaded earlier)
    const images = (ex.images ?? []).map((i) => {
      const bytes = Uint8Array.from(atob(i.base64), (c) => c.charCodeAt(0));
      return new File([bytes], i.name, { type: i.type });
    });
    if (images.length) await addImages(images);
    open(ex.source);
  };
}
