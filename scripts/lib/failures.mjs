// A third reporter for scripts/test.ts: each failed test (not the suites that fail because a test in them did), its
// file and the first lines of its error, one JSON line per failure to its destination. The run prints them last, so a
// log that keeps only its tail (CI's) still names what failed.
const ERROR_LINES = 12;

export default async function* failures(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const { name, file, line, details } = event.data ?? {};
    const error = details?.error;
    // a suite that failed only because a test or suite inside it did says so in its error's failureType
    if (details?.type === 'suite' && error?.failureType === 'subtestsFailed') continue;
    const cause = error?.cause ?? error;
    const text = String(cause?.stack ?? cause?.message ?? cause ?? '')
      .split('\n')
      // Node's own frames say nothing about which line of ours failed
      .filter((l) => !/^\s*at (.*\()?node:|^\s*at new Promise|^\s*at async Promise/.test(l))
      .slice(0, ERROR_LINES)
      .join('\n');
    const where = file ? `${file.replace(/\/dist\/tests\/(.*)\.js$/, '/$1.ts')}${line ? `:${line}` : ''}` : '';
    yield `${JSON.stringify({ name, where, failureType: error?.failureType ?? '', error: text })}\n`;
  }
}
