// Runner versions: which viewer behaviour a pinned source gets (viewer.md §9).
export function runnerAtLeast(runner: string, min: string): boolean {
  const a = runner.split('.').map((x) => parseInt(x, 10) || 0);
  const b = min.split('.').map((x) => parseInt(x, 10) || 0);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}
