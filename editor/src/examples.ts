// The Example menu: the project's examples/*.cm, bundled at build time (scripts/build-editor.ts); choosing one
// replaces the source and starts its preview at t = 0.

/** The project's examples/*.cm, bundled at build time. */
declare const __CM_EXAMPLES__: { name: string; source: string }[];
export const EXAMPLES = __CM_EXAMPLES__;
/** The example a fresh page opens with (the homepage example). */
export const DEFAULT_EXAMPLE = 'wave.cm';

export function defaultExample(): string {
  return (EXAMPLES.find((e) => e.name === DEFAULT_EXAMPLE) ?? EXAMPLES[0])?.source ?? '';
}

export function mountExamples(open: (source: string) => void): void {
  const select = document.getElementById('example') as HTMLSelectElement;
  for (const ex of EXAMPLES) select.append(new Option(ex.name, ex.name));
  select.prepend(new Option('Choose an example…', ''));
  select.value = '';
  select.onchange = () => {
    const ex = EXAMPLES.find((e) => e.name === select.value);
    if (ex) open(ex.source);
  };
}
