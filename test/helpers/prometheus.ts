// Parses a Prometheus text exposition with Prometheus' own Python client (Debian's python3-prometheus-client, which
// .ci/run installs), so the tests read /metrics as a scraper would, not through regexes of ours.
import { spawnSync } from 'node:child_process';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const PARSE = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
out = []
for fam in text_string_to_metric_families(sys.stdin.read()):
    for s in fam.samples:
        # as text: JSON has no NaN or infinities, which the format allows
        out.append({"name": s.name, "labels": s.labels, "value": repr(float(s.value)), "type": fam.type})
print(json.dumps(out))
`;

/** Every sample of the exposition; throws when the parser refuses it. */
export function parseExposition(text: string): (Sample & { type: string })[] {
  // the system's python3: Debian's package is installed for it, not for a python3 of pyenv or a venv
  const python = process.env.PYTHON3 ?? '/usr/bin/python3';
  const r = spawnSync(python, ['-c', PARSE], { input: text, encoding: 'utf8', timeout: 20_000 });
  if (r.status !== 0) throw new Error(`the Prometheus parser refused the exposition: ${r.stderr || r.error}`);
  const raw = JSON.parse(r.stdout) as (Omit<Sample, 'value'> & { value: string; type: string })[];
  const num = (v: string) => (v === 'nan' ? NaN : v === 'inf' ? Infinity : v === '-inf' ? -Infinity : Number(v));
  return raw.map((s) => ({ ...s, value: num(s.value) }));
}

/** The value of the sample with this name and exactly these labels (0 when absent: a counter never touched). */
export function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const want = JSON.stringify(Object.entries(labels).sort());
  const s = samples.find((x) => x.name === name && JSON.stringify(Object.entries(x.labels).sort()) === want);
  return s?.value ?? 0;
}
