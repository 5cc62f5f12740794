// A job's images: which file answers which in-source path, and ASS001 (with the path literal's line and column)
// both when a scene uses a path the job did not map and when the page could not load a mapped one. The one place
// that turns an image problem into a job failure.
import { JobFailure, diagnosticCode, type FailureDiagnostic } from './renderer-port.js';
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { IMAGE_HEADER_BYTES, imageSize, imageSizeRefusal } from '../contract/image-size.js';
import { LIMITS } from '../contract/limits.js';

import { normalizeAssetPath } from '../contract/asset-path.js';
export { normalizeAssetPath };

/** 1-based line and UTF-8 byte column of the first string literal "<path>" in the source, if any. */
export function literalPosition(source: string, path: string): { line: number; column: number } | undefined {
  const i = source.indexOf(JSON.stringify(path));
  const j = i >= 0 ? i : source.indexOf(`"${path}"`);
  if (j < 0) return undefined;
  const before = source.slice(0, j);
  const line = before.split('\n').length;
  const lineStart = before.lastIndexOf('\n') + 1;
  const column = Buffer.byteLength(source.slice(lineStart, j), 'utf8') + 1;
  return { line, column };
}

/** ASS001 (or another asset code) for an image path, placed at the path's literal in the source when it is there. */
export function assetFailure(source: string, path: string, text: string, code = 'ASS001'): JobFailure {
  const pos = literalPosition(source, path);
  const diag: FailureDiagnostic = { code, message: text, severity: 'error', ...(pos ?? {}) };
  return new JobFailure(
    pos ? `${code} ${text} at line ${pos.line}, column ${pos.column}` : `${code} ${text}`,
    diagnosticCode(code),
    [diag],
  );
}

/** The first bytes of a file (what an image header needs); empty when it cannot be read (the page reports ASS001). */
function fileHead(file: string): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const buf = Buffer.alloc(IMAGE_HEADER_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0));
  } catch {
    return Buffer.alloc(0);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

export class JobAssets {
  /** asset files keyed by the URL path the page will request */
  readonly byUrlPath: Map<string, string>;
  private readonly checked = new Set<string>();

  constructor(
    assets: Record<string, string>,
    private readonly source: string,
  ) {
    this.byUrlPath = new Map(Object.entries(assets).map(([p, file]) => [normalizeAssetPath(p), file]));
  }

  /**
   * Throws ASS001 when the value uses an image path the job did not map to an uploaded asset, and ASS002 when the
   * image's header declares more pixels than LIMITS.image (judged before the page decodes it). `paths`: the
   * value's image paths (EvaluatedFrame.images).
   */
  check(paths: readonly string[]): void {
    for (const p of paths) {
      if (this.checked.has(p)) continue;
      const file = this.byUrlPath.get(normalizeAssetPath(p));
      if (file === undefined) throw assetFailure(this.source, p, `image "${p}" is not an uploaded asset of this job`);
      const size = imageSize(fileHead(file));
      const refusal = size && imageSizeRefusal(size, LIMITS.image);
      if (refusal) throw assetFailure(this.source, p, `image "${p}" is too large to draw: ${refusal}`, 'ASS002');
      this.checked.add(p);
    }
  }

  /**
   * How detailed the images at `paths` are, 0..1, by how little their files compress: a file's bytes against 3 a
   * pixel (a noise image's PNG or a noisy JPEG is about 1, a photo well under, a flat picture about 0). The most
   * detailed one counts, whatever the area it covers: the estimate of an encode must not be fooled by a small image.
   */
  detail(paths: readonly string[]): number {
    let level = 0;
    for (const p of paths) {
      const file = this.byUrlPath.get(normalizeAssetPath(p));
      if (file === undefined) continue;
      const size = imageSize(fileHead(file));
      if (!size || !size.width || !size.height) continue;
      let bytes = 0;
      try {
        bytes = statSync(file).size;
      } catch {
        continue;
      }
      level = Math.max(level, Math.min(1, bytes / (size.width * size.height * 3)));
    }
    return level;
  }
}
