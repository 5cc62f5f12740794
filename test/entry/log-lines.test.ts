// The log's form by where it goes (src/entry/log-lines.ts, used by `npm start`): pino's JSON lines to a pipe, readable
// lines on a terminal (a real pseudo-terminal, by util-linux's `script`), made from the same JSON.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { prettyLine } from '../../src/entry/log-lines.js';
import { repoRoot } from '../helpers/shared.js';

const hasScript = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0;

test('a pino line reads as time, level, message and the other fields', () => {
  const json = JSON.stringify({
    level: 30,
    time: Date.UTC(2026, 0, 2, 12, 4, 5),
    pid: 1,
    hostname: 'h',
    phase: 'storage',
    ms: 3,
    note: 'two words',
    msg: 'start: storage 3 ms',
  });
  assert.equal(prettyLine(json), '12:04:05 INFO  start: storage 3 ms (phase=storage ms=3 note="two words")');
  assert.equal(prettyLine(JSON.stringify({ level: 50, time: 0, msg: 'boom' })), '00:00:00 ERROR boom');
  assert.equal(prettyLine('not json'), 'not json');
  assert.match(prettyLine(JSON.stringify({ level: 40, time: 0, msg: 'w' }), true), /\u001b\[33mWARN \u001b\[0m w/);
});

test(
  "npm start's logger: JSON lines to a pipe, readable lines on a terminal",
  { skip: !hasScript && 'needs util-linux script (a pseudo-terminal)' },
  (t) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cm-log-lines-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const main = path.join(dir, 'log.mts');
    writeFileSync(
      main,
      `import pino from ${JSON.stringify(path.join(repoRoot, 'node_modules/pino/pino.js'))};\nimport { logDestination } from ${JSON.stringify(path.join(repoRoot, 'src/entry/log-lines.ts'))};\n` +
        `pino({}, logDestination()).info({ port: 3000 }, 'cmrender listening');\n`,
    );
    const cmd = [process.execPath, '--import', 'tsx', main];
    const piped = spawnSync(cmd[0]!, cmd.slice(1), { cwd: repoRoot, encoding: 'utf8' });
    assert.equal(piped.status, 0, piped.stderr);
    const line = JSON.parse(piped.stdout.trim()) as Record<string, unknown>;
    assert.equal(line.msg, 'cmrender listening');
    assert.equal(line.port, 3000);
    const tty = spawnSync('script', ['-qec', cmd.map((a) => `'${a}'`).join(' '), '/dev/null'], {
      cwd: repoRoot,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    assert.equal(tty.status, 0, tty.stderr);
    assert.match(tty.stdout.trim(), /^\d\d:\d\d:\d\d INFO  cmrender listening \(port=3000\)$/);
  },
);
