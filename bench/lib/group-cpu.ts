// The CPU a process group has used, read from /proc (Linux): what the Chromium benches measure, since a browser is a
// group of processes (browser, zygotes, renderers, GPU and utility processes) that Playwright starts as its leader.
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds of every process in the group, with the children each has reaped (a dead renderer's time included). */
export function groupCpu(group: number): number {
  let ticks = 0;
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(f[2]) !== group) continue;
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100; // USER_HZ
}
