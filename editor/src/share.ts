// The source in the URL fragment, deflated (CompressionStream 'deflate-raw') and base64url-encoded: `#s=...`, and the
// parameters panel's arguments after it as base64url JSON: `#s=...&a=...`.
// A link may also carry it plain, URL-encoded: `#source=...` (the form other .cm pages link an editor with).
const PREFIX = '#s=';
const PLAIN_PREFIX = '#source=';

/** Whether a fragment carries a source (either form). */
export const carriesSource = (hash: string) => hash.startsWith(PREFIX) || hash.startsWith(PLAIN_PREFIX);

async function pipe(bytes: Uint8Array, stream: CompressionStream | DecompressionStream): Promise<Uint8Array> {
  const out = new Response(new Blob([bytes as BlobPart]).stream().pipeThrough(stream));
  return new Uint8Array(await out.arrayBuffer());
}

function toBase64Url(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): Uint8Array {
  const s = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

/** Where a fragment's scene arguments start: `#s=<source>&a=<base64url of their JSON>` (base64url has no `&`). */
const ARGS = '&a=';

/** The fragment that carries `source`, and the scene's arguments when there are any. */
export async function fragmentOf(source: string, args?: Record<string, unknown>): Promise<string> {
  const s = PREFIX + toBase64Url(await pipe(new TextEncoder().encode(source), new CompressionStream('deflate-raw')));
  return args && Object.keys(args).length > 0
    ? s + ARGS + toBase64Url(new TextEncoder().encode(JSON.stringify(args)))
    : s;
}

/** The scene arguments a `#s=` fragment carries, or null (none, or damaged). */
export function argsOfFragment(hash: string): Record<string, unknown> | null {
  if (!hash.startsWith(PREFIX)) return null;
  const at = hash.indexOf(ARGS);
  if (at < 0) return null;
  try {
    const v: unknown = JSON.parse(new TextDecoder().decode(fromBase64Url(hash.slice(at + ARGS.length))));
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The source a fragment carries, or null when it carries none (or a damaged one). */
export async function sourceOfFragment(hash: string): Promise<string | null> {
  if (hash.startsWith(PLAIN_PREFIX)) {
    // form encoding: %XX escapes, and + for a space (a + of the source is %2B); a damaged escape stays as written
    return new URLSearchParams(hash.slice(1)).get('source');
  }
  if (!hash.startsWith(PREFIX)) return null;
  try {
    return new TextDecoder().decode(
      await pipe(fromBase64Url(hash.slice(PREFIX.length).split('&')[0]!), new DecompressionStream('deflate-raw')),
    );
  } catch {
    return null;
  }
}
