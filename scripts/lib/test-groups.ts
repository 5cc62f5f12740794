// Which test files are system tests: those that start real processes (Chromium, ffmpeg, Redis, a child service or
// CLI). scripts/test.ts runs them in their own group. And which files must not share a process with others.
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

/** What a file names when it looks at its own process's children (descendants(process.pid)): it runs alone. */
export const OWN_PROCESS_MARKER = /\bprocess\.pid\b/;

/**
 * The test files under roots, split into the two groups, and those of either group that must run in a process of
 * their own rather than share one (scripts/test.ts): each file read once.
 */
export function testGroups(roots: string[]): { inProcess: string[]; system: string[]; alone: Set<string> } {
  const text = new Map(testFiles(roots).map((f) => [f, readFileSync(join(repoRoot, f), 'utf8')]));
  const files = [...text.keys()];
  const system = files.filter((f) => isSystemTest(text.get(f)!));
  return {
    inProcess: files.filter((f) => !system.includes(f)),
    system,
    alone: new Set(files.filter((f) => OWN_PROCESS_MARKER.test(text.get(f)!))),
  };
}
