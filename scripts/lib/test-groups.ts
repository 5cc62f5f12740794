// Which test files are system tests: those that start real processes (Chromium, ffmpeg, Redis, a child service or
// CLI). scripts/test.ts runs them in their own group.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../../src/paths.js';

/** What a system test names: a real renderer or browser, a child process, Redis, ffmpeg, a started service. */
export const SYSTEM_MARKERS =
  /\b(realRenderer|fullRenderer|exportRenderer|ChromiumRenderer|ExportRenderer|WarmBrowser|launchTestChromium|launchForGl|startRig|ServiceProcess|child_process|redis|Redis|ffmpeg|ffprobe|decodeFrames|openViewer|launch)\b/;

export function isSystemTest(text: string): boolean {
  return SYSTEM_MARKERS.test(text);
}

/** Every *.test.ts under the given roots (repository-relative), sorted. */
export function testFiles(roots: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isDirectory()) for (const n of readdirSync(p)) walk(join(p, n));
    else if (p.endsWith('.test.ts')) out.push(relative(repoRoot, p));
  };
  for (const r of roots) walk(join(repoRoot, r));
  return out.sort();
}

/** The test files under roots, split into the two groups. */
export function testGroups(roots: string[]): { inProcess: string[]; system: string[] } {
  const files = testFiles(roots);
  const system = files.filter((f) => isSystemTest(readFileSync(join(repoRoot, f), 'utf8')));
  return { inProcess: files.filter((f) => !system.includes(f)), system };
}
