// The `Range` header of GET /v1/outputs/{filename} (RFC 9110 §14): one `bytes=` range, or none.

/** Parses a single `bytes=` range against a size. null: ignore the header (serve the whole file); 'unsatisfiable': 416. */
export function parseRange(header: string, size: number): { start: number; end: number } | null | 'unsatisfiable' {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null; // malformed or multiple ranges: RFC 9110 lets us ignore it
  const [, a, b] = m;
  if (a === '' && b === '') return null;
  let start: number;
  let end: number;
  if (a === '') {
    const n = Number(b);
    if (n === 0) return 'unsatisfiable';
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(a);
    end = b === '' ? size - 1 : Math.min(Number(b), size - 1);
    if (b !== '' && Number(b) < start) return null;
  }
  if (start >= size || size === 0) return 'unsatisfiable';
  return { start, end };
}
