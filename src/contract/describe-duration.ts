// A duration in the words a user reads ("24 hours", "15 minutes", "10 seconds"), so a sentence that states a
// time limit or a retention says the configured value, not a number written beside it.
const UNITS: [ms: number, one: string, many: string][] = [
  [3_600_000, 'hour', 'hours'],
  [60_000, 'minute', 'minutes'],
  [1_000, 'second', 'seconds'],
];

/** The largest unit that divides `ms` exactly (hours at most: "48 hours", never "2 days"); else milliseconds. */
export function describeDuration(ms: number): string {
  for (const [unit, one, many] of UNITS)
    if (ms >= unit && ms % unit === 0) return `${ms / unit} ${ms === unit ? one : many}`;
  return `${ms} ms`;
}
