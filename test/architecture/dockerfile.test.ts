// The Dockerfile, read as text (no Docker daemon is needed): each stage copies files that exist and that
// .dockerignore lets through, the final stage runs the compiled service with production dependencies only, and every
// package the compiled code imports is a production dependency (else `npm ci --omit=dev` would leave it out). And the
// final stage's layout, rebuilt in a temporary directory from its COPY lines, runs `cmrender` from the image's PATH.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import {
  accessSync,
  constants,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { buildApp } from '../../scripts/build-app.js';
import { repoRoot } from '../helpers/shared.js';

const dockerfile = readFileSync(join(repoRoot, 'Dockerfile'), 'utf8');
const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as {
  version: string;
  engines: { node: string };
  scripts: Record<string, string>;
  dependencies: Record<string, string>;
};
/** The instructions, continuation lines joined, comments dropped. */
const lines = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));
const stages: string[][] = [];
for (const l of lines) {
  if (/^FROM /i.test(l)) stages.push([]);
  stages.at(-1)?.push(l);
}
const [buildStage, finalStage] = stages as [string[], string[]];
const ignored = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter(Boolean);

test('two stages on the same Node LTS image, at or above the engines floor', () => {
  assert.equal(stages.length, 2);
  const images = stages.map((s) => /^FROM (\S+)/.exec(s[0]!)![1]!);
  const majors = images.map((i) => Number(/^node:(\d+)-bookworm-slim$/.exec(i)?.[1]));
  assert.equal(majors[0], majors[1], images.join(' vs '));
  assert.ok(majors[0]! % 2 === 0, 'an even (LTS) Node line');
  assert.ok(majors[0]! >= Number(/>=(\d+)/.exec(pkg.engines.node)![1]));
  assert.match(buildStage[0]!, / AS build$/);
});

test('every COPY from the build context names a file that exists and is not in .dockerignore', () => {
  const copies = lines.filter((l) => /^COPY /.test(l) && !/--from=/.test(l));
  assert.ok(copies.length >= 5);
  for (const c of copies) {
    const sources = c.split(/\s+/).slice(1, -1);
    for (const s of sources) {
      assert.ok(existsSync(join(repoRoot, s)), `${c}: ${s} does not exist`);
      assert.ok(!ignored.includes(s), `${c}: ${s} is in .dockerignore`);
    }
  }
});

test('the build stage runs `npm run build`; the final stage copies its dist/ and bin/, production dependencies only', () => {
  assert.ok(buildStage.includes('RUN npm run build'));
  assert.ok(finalStage.some((l) => /^RUN npm ci --omit=dev\b/.test(l)));
  assert.ok(!finalStage.some((l) => /npm run build|tsx/.test(l)), 'nothing compiles or runs tsx in the final stage');
  assert.ok(finalStage.includes('COPY --from=build /app/dist ./dist'));
  assert.ok(finalStage.includes('COPY bin ./bin'));
  assert.match(finalStage.join('\n'), /PATH=\/app\/bin:\$PATH/);
  accessSync(join(repoRoot, 'bin', 'cmrender.js'), constants.X_OK);
});

test('the final command is plain node on the file `npm start` runs, and `npm run build` writes it', () => {
  const cmd = finalStage.find((l) => l.startsWith('CMD '))!;
  assert.equal(cmd, 'CMD ["node", "dist/app/server.js"]');
  assert.match(pkg.scripts.start!, /&& node dist\/app\/server\.js$/);
  assert.match(pkg.scripts.build!, /scripts\/build-app\.ts/);
});

test('every package the compiled service and CLI import is a production dependency', async () => {
  const out = mkdtempSync(join(tmpdir(), 'cmrender-app-'));
  after(() => rmSync(out, { recursive: true, force: true }));
  await buildApp(out);
  const imported = new Set<string>();
  for (const f of readdirSync(out).filter((n) => n.endsWith('.js'))) {
    const text = readFileSync(join(out, f), 'utf8');
    // `from` as a keyword, not the end of a string or property ("from", params.from": the video range's params); and
    // CommonJS packages loaded through createRequire (src/render/chromium.ts)
    for (const m of text.matchAll(
      /(?:(?<!["'.])\bfrom\s*|\bimport\s*\(\s*|^import\s*|\bcreateRequire\(import\.meta\.url\)\(\s*)"([^"./][^"]*)"/gm,
    )) {
      const spec = m[1]!;
      if (spec.startsWith('node:') || builtinModules.includes(spec)) continue;
      imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
    }
  }
  assert.ok(imported.has('fastify') && imported.has('playwright-core'), [...imported].join(', '));
  const missing = [...imported].filter((p) => !(p in pkg.dependencies));
  assert.deepEqual(missing, [], `imported at run time but not in dependencies: ${missing.join(', ')}`);
});

test("the final stage's layout, built as the image would, has a working `cmrender` on its PATH", (t) => {
  // WORKDIR /app becomes a temporary directory; each COPY of the final stage is done from the build context (or,
  // --from=build, from what `npm run build` made here); `npm ci --omit=dev` is this checkout's node_modules
  const top = mkdtempSync(join(tmpdir(), 'cmrender-image-'));
  t.after(() => rmSync(top, { recursive: true, force: true }));
  const workdir = /^WORKDIR (\S+)$/.exec(finalStage.find((l) => l.startsWith('WORKDIR '))!)![1]!;
  const inImage = (p: string) => join(top, p.startsWith('/') ? p : join(workdir, p));
  mkdirSync(inImage(workdir), { recursive: true });
  for (const c of finalStage.filter((l) => l.startsWith('COPY '))) {
    const args = c.split(/\s+/).slice(1);
    const fromBuild = args[0] === '--from=build';
    const paths = fromBuild ? args.slice(1) : args;
    const dest = paths.at(-1)!;
    for (const s of paths.slice(0, -1)) {
      // the build stage's WORKDIR is /app too: its /app/dist is this checkout's dist/
      const from = fromBuild ? join(repoRoot, relative('/app', s)) : join(repoRoot, s);
      const to = dest.endsWith('/') ? join(inImage(dest), basename(s)) : inImage(dest);
      cpSync(from, to, { recursive: true });
    }
  }
  assert.ok(finalStage.some((l) => /^RUN npm ci --omit=dev\b/.test(l)));
  symlinkSync(join(repoRoot, 'node_modules'), join(inImage(workdir), 'node_modules'));
  const env = /^ENV (.*)$/.exec(finalStage.find((l) => l.startsWith('ENV '))!)![1]!;
  const vars = Object.fromEntries([...env.matchAll(/(\w+)=(\S+)/g)].map((m) => [m[1]!, m[2]!]));
  assert.equal(vars.HOST, '0.0.0.0', 'the image binds every interface itself (the service never guesses)');
  const path = vars.PATH!.replace('$PATH', process.env.PATH ?? '').replace(/(^|:)\/app\b/g, `$1${inImage('/app')}`);
  const run = (args: string[], input?: string) =>
    spawnSync('cmrender', args, {
      cwd: inImage(workdir),
      env: { ...process.env, PATH: path, NODE_ENV: 'production' },
      input,
      encoding: 'utf8',
    });
  const version = run(['--version']);
  assert.equal(version.error, undefined, `cmrender is not on the image's PATH: ${version.error?.message}`);
  assert.equal(version.status, 0, version.stderr);
  assert.equal(version.stdout, `cmrender ${pkg.version}\n`);
  // the README's `docker run -i --rm cmrender cmrender check - < scene.cm`
  const check = run(['check', '-'], readFileSync(join(repoRoot, 'examples', 'hello.cm'), 'utf8'));
  assert.equal(check.status, 0, check.stderr);
  assert.equal(check.stdout, 'ok: -\n');
});
