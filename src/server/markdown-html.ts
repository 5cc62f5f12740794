// Markdown to a readable HTML page, for the Markdown this service writes itself (the language reference,
// src/lang/reference.ts): headings with anchors, paragraphs, lists, pipe tables, fenced code, and inline code, bold,
// emphasis and links. Not a general Markdown parser: the input is ours, so a small one that escapes every text is
// safer than a dependency that accepts raw HTML.

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** The anchor of a heading: lower case, letters, digits and dashes (`Runner pins` → `runner-pins`). */
export function anchorOf(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`*]/g, '')
    .replace(/[^a-z0-9_ .-]/g, '')
    .trim()
    .replace(/[ .]+/g, '-');
}

function inline(s: string): string {
  // code spans first: their text is literal
  const parts = s.split(/(`[^`]*`)/g);
  return parts
    .map((p) => {
      if (p.startsWith('`') && p.endsWith('`') && p.length >= 2) return `<code>${esc(p.slice(1, -1))}</code>`;
      return esc(p)
        .replace(/\\\|/g, '|')
        .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
        .replace(/\*([^*]+)\*/g, '<em>$1</em>')
        .replace(/\[([^\]]+)\]\(((?:#|\/|https:\/\/)[^)\s]*)\)/g, '<a href="$2">$1</a>');
    })
    .join('');
}

function cells(row: string): string[] {
  return row
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

export function markdownToHtml(md: string, title: string): string {
  const lines = md.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    if (line.startsWith('```')) {
      const lang = line.slice(3).trim();
      const body: string[] = [];
      for (i++; i < lines.length && !lines[i]!.startsWith('```'); i++) body.push(lines[i]!);
      i++;
      out.push(`<pre${lang ? ` class="lang-${esc(lang)}"` : ''}><code>${esc(body.join('\n'))}</code></pre>`);
      continue;
    }
    const h = /^(#{1,4}) (.*)$/.exec(line);
    if (h) {
      const n = h[1]!.length;
      out.push(`<h${n} id="${anchorOf(h[2]!)}">${inline(h[2]!)}</h${n}>`);
      i++;
      continue;
    }
    if (line.startsWith('<!--')) {
      while (i < lines.length && !lines[i]!.includes('-->')) i++;
      i++;
      continue;
    }
    if (line.startsWith('|')) {
      const rows: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('|'); i++) rows.push(lines[i]!);
      const [head, , ...body] = rows;
      out.push(
        '<table>',
        `<thead><tr>${cells(head!)
          .map((c) => `<th>${inline(c)}</th>`)
          .join('')}</tr></thead>`,
        '<tbody>',
        ...body.map(
          (r) =>
            `<tr>${cells(r)
              .map((c) => `<td>${inline(c)}</td>`)
              .join('')}</tr>`,
        ),
        '</tbody></table>',
      );
      continue;
    }
    if (line.startsWith('- ')) {
      const items: string[] = [];
      for (; i < lines.length && lines[i]!.startsWith('- '); i++) items.push(`<li>${inline(lines[i]!.slice(2))}</li>`);
      out.push('<ul>', ...items, '</ul>');
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const para: string[] = [];
    for (; i < lines.length && lines[i]!.trim() !== '' && !/^(```|#|\||- |<!--)/.test(lines[i]!); i++)
      para.push(lines[i]!);
    out.push(`<p>${inline(para.join(' '))}</p>`);
  }
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>
body { font: 16px/1.55 system-ui, sans-serif; max-width: 56rem; margin: 2rem auto; padding: 0 1rem; color: #1d2430; }
code, pre { font: 14px/1.45 ui-monospace, monospace; }
:not(pre) > code { background: #eef1f5; padding: 0 .25em; border-radius: 3px; }
pre { background: #1e2430; color: #e6e9ef; padding: .75rem 1rem; overflow-x: auto; border-radius: 6px; }
table { border-collapse: collapse; margin: .5rem 0 1rem; }
th, td { border: 1px solid #d5dbe3; padding: .25rem .5rem; text-align: left; vertical-align: top; }
h2 { border-bottom: 1px solid #d5dbe3; padding-bottom: .25rem; margin-top: 2.5rem; }
h3 { margin-top: 2rem; }
</style>
</head>
<body>
${out.join('\n')}
</body>
</html>
`;
}
