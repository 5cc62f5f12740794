// THE one list of runner versions (language.md §3, stdlib.md §9) and which library function
// (or language feature) each version introduces. `available` is the per-version switch the
// integrator may flip; a pin to an unavailable or unknown version is RUN001.

export interface RunnerVersion {
  version: string;
  available: boolean;
  /** library functions (callee names) introduced by this version */
  functions: string[];
  /** language features introduced by this version */
  features: string[];
}

export const RUNNERS: readonly RunnerVersion[] = [
  { version: '0.0.1', available: true, functions: [], features: [] },
  { version: '0.0.2', available: true, functions: ['metaballs', 'blob', 'point', 'spotlight'], features: [] },
  { version: '0.0.3', available: true, functions: ['path'], features: [] },
  { version: '0.0.5', available: true, functions: ['svg', 'gradient', 'bloom'], features: ['raw-strings'] },
  { version: '0.0.6', available: true, functions: [], features: [] },
  { version: '0.0.7', available: true, functions: [], features: [] },
  { version: '0.0.10', available: true, functions: [], features: [] },
  { version: '0.0.12', available: true, functions: [], features: [] },
  { version: '0.0.13', available: true, functions: ['vectorize'], features: [] },
];

export const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?$/;

export function availableVersions(): string[] {
  return RUNNERS.filter((r) => r.available).map((r) => r.version);
}

/** Newest available version (used when a source has no pin). */
export function newestRunner(): string {
  const a = availableVersions();
  return a[a.length - 1] ?? RUNNERS[RUNNERS.length - 1]!.version;
}

function indexOf(version: string): number {
  return RUNNERS.findIndex((r) => r.version === version);
}

/** null when the version is known and available, else the RUN001 message. */
export function runnerError(pin: string): string | null {
  const i = indexOf(pin);
  if (i >= 0 && RUNNERS[i]!.available) return null;
  return `unknown runner version "${pin}" (available: ${availableVersions().join(', ')})`;
}

/** First version that has the library function `name`, or null if it is in every version. */
export function functionSince(name: string): string | null {
  for (const r of RUNNERS) if (r.functions.includes(name)) return r.version;
  return null;
}

export function featureSince(feature: string): string | null {
  for (const r of RUNNERS) if (r.features.includes(feature)) return r.version;
  return null;
}

/** true when `runner` (a known version) is at least `since`. */
export function atLeast(runner: string, since: string): boolean {
  const a = indexOf(runner);
  const b = indexOf(since);
  if (a < 0 || b < 0) return true;
  return a >= b;
}

export { SEMVER as RUNNER_PIN_SYNTAX };
