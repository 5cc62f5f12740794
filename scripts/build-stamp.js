// Whether dist/ is current, so `npm start` builds only what changed (or nothing) and the CLI in a checkout runs the
// compiled dist/app/cli.js instead of transpiling src/ on every call. Each part of the build (viewer, editor, app)
// has its inputs (directories and files); their stamp is a hash of every input file's path, size and mtime, written
// to dist/.build-stamp.json once that part is built. Plain JavaScript with no dependency: it runs before anything is
// compiled, in a few milliseconds.
//   node scripts/build-stamp.js build    builds the stale parts (each its own scripts/build-*.ts), then stamps them
//   node scripts/build-stamp.js write    stamps every part as built now (the end of `npm run build`)
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** the repository: the nearest folder above with a package.json (this file also runs from dist/tests/scripts/) */
export const root = (() => {
  for (let d = dirname(fileURLToPath(import.meta.url)); ; d = dirname(d)) {
    if (existsSync(join(d, 'package.json'))) return d;
    if (dirname(d) === d) throw new Error('no package.json above scripts/build-stamp.js');
  }
})();
const STAMP = join(root, 'dist', '.build-stamp.json');
/** inputs of every part: the dependencies and the compiler's settings */
const SHARED = ['package-lock.json', 'tsconfig.json', 'src/paths.ts'];

/** Each part: what it is built from, the file it writes last, and the script that builds it. */
export const PARTS = {
  viewer: {
    inputs: ['viewer', 'src/lang', 'src/contract', 'scripts/build-viewer.ts'],
    output: 'dist/viewer/viewer.js',
    script: 'scripts/build-viewer.ts',
  },
  editor: {
    inputs: ['editor', 'viewer/src', 'src/lang', 'src/contract', 'examples', 'scripts/build-editor.ts'],
    output: 'dist/editor/editor.js',
    script: 'scripts/build-editor.ts',
  },
  app: {
    // the service bundles the viewer modules src/export shares
    inputs: ['src', 'viewer/src', 'scripts/build-app.ts'],
    output: 'dist/app/cli.js',
    script: 'scripts/build-app.ts',
  },
};

function walk(rel, out) {
  const abs = join(root, rel);
  let st;
  try {
    st = statSync(abs);
  } catch {
    return;
  }
  if (st.isDirectory()) for (const name of readdirSync(abs).sort()) walk(join(rel, name), out);
  else out.push(`${rel}\0${st.size}\0${st.mtimeMs}`);
}

/** The stamp of a part's inputs as they are now. */
export function inputStamp(part) {
  const files = [];
  for (const rel of [...SHARED, ...PARTS[part].inputs]) walk(rel, files);
  return createHash('sha256').update(files.join('\n')).digest('hex');
}

function readStamps() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return {};
  }
}

/** Whether dist/ holds the part built from its inputs as they are now. */
export function current(part, stamps = readStamps()) {
  return existsSync(join(root, PARTS[part].output)) && stamps[part] === inputStamp(part);
}

function writeStamps(stamps) {
  writeFileSync(STAMP, JSON.stringify(stamps, null, 2) + '\n');
}

/** Builds the parts whose inputs changed since they were built; returns their names. */
export function buildStale(log = (s) => process.stderr.write(s + '\n')) {
  const stamps = readStamps();
  const stale = Object.keys(PARTS).filter((p) => !current(p, stamps));
  if (!stale.length) {
    log('build: dist/ is current');
    return stale;
  }
  for (const part of stale) {
    // stamped with the inputs as they were before the build: an edit made meanwhile builds again next time
    const stamp = inputStamp(part);
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, PARTS[part].script)], {
      cwd: root,
      stdio: 'inherit',
    });
    if (r.status !== 0) throw new Error(`build of ${part} failed (${PARTS[part].script})`);
    writeStamps({ ...readStamps(), [part]: stamp });
    log(`build: ${part} ${Math.round(performance.now() - t0)} ms`);
  }
  return stale;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const cmd = process.argv[2];
  if (cmd === 'build') {
    try {
      buildStale();
    } catch (err) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
  } else if (cmd === 'write') {
    writeStamps(Object.fromEntries(Object.keys(PARTS).map((p) => [p, inputStamp(p)])));
  } else {
    process.stderr.write('usage: node scripts/build-stamp.js build|write\n');
    process.exit(2);
  }
}
