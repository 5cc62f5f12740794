// Which test files are system tests: those that start real processes (Chromium, ffmpeg, Redis, a child service or
// CLI). scripts/test.ts runs them in their own group.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../../src/paths.js';

/** What a system test names: a real renderer or browser, a child process, Redis, ffmpeg, a started service. */
export const SYSTEM_MARKERS =
  /\b(realRenderer|fullRenderer|exportRenderer|ChromiumRenderer|ExportRenderer|WarmBrowser|launchTestChromium|launchForGl|startRig|ServiceProcess|child_process|redis|Redis|ffmpeg|ffprobe|decodeFrames|openViewer|launch)\b/;

/**
 * The system files that take longest (each 25 s or more on 2 cores, measured with tools like file-times.mjs), longest
 * first: scripts/test.ts starts them first, so that the run does not end with one of them running alone. A file
 * missing from the list just starts after them; one listed that no longer exists is ignored.
 */
export const LONGEST_SYSTEM_FILES = [
  'test/server/durability/restart.test.ts',
  'test/server/durability/faults.test.ts',
  'test/render/render.test.ts',
  'test/server/jobs/job-retention.test.ts',
  'test/render/gl-recovery.test.ts',
  'test/docs/readme.test.ts',
  'test/cli/render.test.ts',
  'test/server/jobs/job-lifecycle.test.ts',
  'test/render/codecs.test.ts',
  'test/server/redis/redis-outage.test.ts',
  'test/entry/main.test.ts',
  'test/editor/export.test.ts',
  'test/server/redis/cluster.test.ts',
  'test/server/durability/hostile.test.ts',
];

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
