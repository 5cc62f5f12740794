// The one URL path the drawing page requests for an in-source image path. The renderer looks an image up by it, the
// server refuses an asset map where two paths give one (`/img/a.png` and `/img/./a.png`: which picture would be
// drawn depends on the map's order) and the render cache keys assets by it.

/** The URL path the page requests for an in-source path (what `new URL(p, origin + '/')` gives). */
export function normalizeAssetPath(p: string): string {
  try {
    return decodeURIComponent(new URL(p, 'http://cmrender.invalid/').pathname);
  } catch {
    return p;
  }
}

/** The first two in-source paths of a map that the page would load as one URL, if any. */
export function sameUrlPaths(paths: Iterable<string>): [string, string, string] | undefined {
  const seen = new Map<string, string>();
  for (const p of paths) {
    const url = normalizeAssetPath(p);
    const first = seen.get(url);
    if (first !== undefined) return [first, p, url];
    seen.set(url, p);
  }
  return undefined;
}
