// `npm ci` prints no EBADENGINE warning on any Node the project claims: every package of the lock file (development
// ones too, since `npm ci` installs them) accepts the oldest Node of package.json's `engines` and the current LTS.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/shared.js';

const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { version?: string; engines?: { node?: string } | string[] }>;
};

type Version = [number, number, number];
const parse = (v: string): Version => {
  const [a = 0, b = 0, c = 0] = v
    .replace(/^v/, '')
    .split('.')
    .map((n) => (n === 'x' || n === '*' ? 0 : Number(n)));
  return [a, b, c];
};
const cmp = (a: Version, b: Version) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];

/** One comparator of a node-semver range: `>=20.15`, `^20.9.0`, `20`, `<21.0.0`, `*`. */
function satisfiesOne(v: Version, c: string): boolean {
  const m = /^(>=|<=|>|<|\^|~|=)?\s*v?([\dx*]+(?:\.[\dx*]+){0,2})$/.exec(c);
  if (!m) throw new Error(`range comparator not understood: ${c}`);
  const [, op = '', ver] = m;
  const parts = ver!.split('.').length;
  const r = parse(ver!);
  if (ver === '*' || ver === 'x') return true;
  switch (op) {
    case '>=':
      return cmp(v, r) >= 0;
    case '>':
      return cmp(v, r) > 0;
    case '<=':
      return cmp(v, r) <= 0;
    case '<':
      return cmp(v, r) < 0;
    case '^':
      return v[0] === r[0] && cmp(v, r) >= 0;
    case '~':
      return v[0] === r[0] && v[1] === r[1] && cmp(v, r) >= 0;
    default: // `20` or `20.1`: any version with that prefix
      return v.slice(0, parts).every((n, i) => n === r[i]);
  }
}

/** node-semver's range grammar as lock files use it: `a || b`, each a space-separated AND of comparators. */
function satisfies(version: string, range: string): boolean {
  const v = parse(version);
  return range.split('||').some((alt) => {
    const comparators = alt
      .trim()
      .replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1')
      .split(/\s+/)
      .filter(Boolean);
    return comparators.length === 0 || comparators.every((c) => satisfiesOne(v, c));
  });
}

const floor = /^>=\s*(\d+\.\d+(?:\.\d+)?)$/.exec(pkg.engines.node)?.[1];
const claimed = [floor!, '24.0.0'];

test('the range reader agrees with npm on the shapes the lock file uses', () => {
  assert.ok(satisfies('20.15.0', '^18.18.0 || ^20.9.0 || >=21.1.0'));
  assert.ok(!satisfies('20.15.0', '^20.19.0 || ^22.13.0 || >=24'));
  assert.ok(satisfies('24.0.0', '^20.19.0 || ^22.13.0 || >=24'));
  assert.ok(satisfies('20.15.0', '18 || 20 || >=22'));
  assert.ok(!satisfies('20.15.0', '>=22'));
  assert.ok(satisfies('20.15.0', '>= 14.6'));
  assert.ok(satisfies('20.15.0', '>=16 || 14 >=14.17'));
});

test(`every locked package accepts Node ${claimed.join(' and ')} (package.json engines: ${pkg.engines.node})`, () => {
  assert.ok(floor, `engines.node is a plain floor: ${pkg.engines.node}`);
  const refused: string[] = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    const range = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (!path || !range) continue;
    for (const node of claimed)
      if (!satisfies(node, range)) refused.push(`${path}@${entry.version}: node ${range} refuses ${node}`);
  }
  assert.deepEqual(refused, []);
});
