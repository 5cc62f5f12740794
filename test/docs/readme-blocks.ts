// The README's code blocks, as test/docs/readme.test.ts runs them. A block's info string says what it is:
//
//   ```sh setup          a set-up command a test cannot run (it installs packages or starts the service)
//   ```sh                run, in order, in one shell, from the clone's root
//   ```python frame.py   saved under that name (the text around it says so), then run by a later sh block
//   ```js render.mjs
//
// Any other info string is an error, so no block can drift out of the test by a new spelling.

export type Block =
  | { kind: 'setup'; line: number; body: string }
  | { kind: 'sh'; line: number; body: string }
  | { kind: 'file'; lang: 'python' | 'js'; name: string; line: number; body: string };

const FILE_NAME = { python: /^[\w-]+\.py$/, js: /^[\w-]+\.mjs$/ } as const;

/** Every fenced block of a Markdown text, classified by its info string; throws on one it does not know. */
export function readmeBlocks(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end] !== '```') end++;
    if (end === lines.length) throw new Error(`README.md:${i + 1}: the block never closes`);
    const body = lines.slice(start, end).join('\n') + '\n';
    const info = open[1]!.trim();
    const [lang, name, ...rest] = info.split(/\s+/);
    const line = i + 1;
    if (info === 'sh setup') blocks.push({ kind: 'setup', line, body });
    else if (info === 'sh') blocks.push({ kind: 'sh', line, body });
    else if ((lang === 'python' || lang === 'js') && name && rest.length === 0 && FILE_NAME[lang].test(name))
      blocks.push({ kind: 'file', lang, name, line, body });
    else
      throw new Error(
        `README.md:${line}: info string "${info}" is none of "sh setup", "sh", "python NAME.py", "js NAME.mjs"`,
      );
    i = end;
  }
  return blocks;
}

/** The lines of a block without its comments (whole-line, and a trailing `  # …` or `  // …`). */
export function codeLines(block: Block): string[] {
  const comment = block.kind === 'file' && block.lang === 'js' ? '//' : '#';
  return block.body
    .split('\n')
    .filter((l) => !l.trim().startsWith(comment))
    .map((l) => {
      const at = l.search(new RegExp(`\\s{2,}${comment} `));
      return at >= 0 ? l.slice(0, at) : l;
    });
}

/** What a reader would have to fill in: an ellipsis or an angle-bracketed name left in the code itself. */
export function placeholders(block: Block): string[] {
  return codeLines(block).filter((l) => /…|<(job_id|key|id|secret|your[^>]*)>/i.test(l));
}
