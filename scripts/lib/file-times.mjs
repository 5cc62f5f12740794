// A second reporter for scripts/test.ts: how long each test file took, so the slowest files of a run are known
// (the TAP stream names tests, not files). A file's time runs from its start (its first dequeue) to its last event,
// so it includes its before/after hooks and the services they start. A file that shares a process with others
// (scripts/test.ts's batches) runs as a suite named after it, and its tests' events reach the runner only when that
// suite ends, all at once: its time is the suite's own duration instead. One JSON line per file to its destination.
import { performance } from 'node:perf_hooks';
import { resolve } from 'node:path';

export default async function* fileTimes(source) {
  const seen = new Map();
  /** a batched file's suite (a top-level suite of a batch, named after the file) -> its duration */
  const suiteMs = new Map();
  for await (const event of source) {
    const { name, nesting, details } = event.data ?? {};
    if (
      (event.type === 'test:pass' || event.type === 'test:fail') &&
      nesting === 0 &&
      details?.type === 'suite' &&
      /\.test\.[cm]?[jt]s$/.test(name ?? '')
    )
      suiteMs.set(resolve(name), details.duration_ms);
    // a file's own events name it as run (dist/tests/…/x.test.js), its tests as source-mapped (…/x.test.ts): one file
    const file = event.data?.file?.replace(/\/dist\/tests\/(.*)\.js$/, '/$1.ts');
    // a describe() written in a helper (test/helpers/backends.ts) names the helper: its tests name the test file
    if (!file || !/\.test\.[cm]?[jt]s$/.test(file)) continue;
    // every file is enqueued when the run starts; it begins at its first dequeue
    if (event.type === 'test:enqueue') continue;
    const now = performance.now();
    const f = seen.get(file) ?? { first: now, last: now, tests: 0 };
    f.last = now;
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.details?.type !== 'suite')
      f.tests += 1;
    seen.set(file, f);
  }
  for (const [file, f] of seen)
    yield `${JSON.stringify({ file, ms: Math.round(suiteMs.get(file) ?? f.last - f.first), tests: f.tests })}\n`;
}
