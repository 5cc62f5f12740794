// The README runs as it is written: every code block but the two set-up commands is run against a real service
// (the built dist/app/server.js, as `npm start` runs it, on a free port and a temporary DATA_DIR). The shell blocks
// run in order in one bash (with -e, -u and pipefail, so a failed command fails the test), from a directory that
// stands for the clone's root; the Python and JavaScript blocks are saved there under the names their info
// strings give, as the README asks the reader to. What they write is then checked as a user would look at it.
//
// The service gets WEBHOOK_ALLOW=127.0.0.1 beside its defaults: the README says to start it so for the webhook
// receiver on the same machine (checked below). The test waits for /readyz before the first block, so it does not
// depend on how warm-up answers POSTs.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { repoRoot } from '../helpers/shared.js';
import { signStandard } from '../../src/server/webhooks/signature.js';
import { readmeBlocks, placeholders, type Block } from './readme-blocks.js';
import { until } from '../helpers/until.js';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const blocks = readmeBlocks(readme);
const shBlocks = blocks.filter((b) => b.kind === 'sh');
const fileBlocks = blocks.filter((b): b is Extract<Block, { kind: 'file' }> => b.kind === 'file');

test('README: the blocks a test cannot run are exactly the two set-up commands, and no block holds a placeholder', () => {
  const setup = blocks.filter((b) => b.kind === 'setup').map((b) => b.body.trim());
  assert.equal(setup.length, 2, `setup blocks: ${JSON.stringify(setup)}`);
  assert.match(setup[0]!, /^apt-get update && apt-get install -y [^\n]* && npm ci && npm start$/);
  assert.equal(setup[1], 'npm test');
  for (const b of blocks) assert.deepEqual(placeholders(b), [], `README.md:${b.line} has a placeholder`);
  // each saved file is run by some shell block, and each is saved once
  const names = fileBlocks.map((b) => b.name);
  assert.equal(new Set(names).size, names.length);
  for (const name of names)
    assert.ok(
      shBlocks.some((b) => new RegExp(`^(python3|node) ${name.replace('.', '\\.')} `, 'm').test(b.body)),
      `${name} is saved but never run`,
    );
  // the one setting beside the defaults that the test gives the service is the one the README tells the reader
  assert.match(readme, /`WEBHOOK_ALLOW=127\.0\.0\.1 npm start`/);
});

/** A TCP port nobody listens on right now, on the loopback. */
async function freePort(): Promise<number> {
  const srv = createServer();
  srv.listen(0, '127.0.0.1');
  await once(srv, 'listening');
  const port = (srv.address() as { port: number }).port;
  srv.close();
  await once(srv, 'close');
  return port;
}

/** Runs a command to its end (bounded); its process group is killed at the end, so nothing it started stays. */
function run(
  cmd: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<{ code: number | null; out: string }> {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
  const kill = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const t = setTimeout(kill, opts.timeoutMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(t);
      kill(); // a background job the script left (e.g. the receiver after a failure)
      resolve({ code, out });
    }),
  );
}

describe('README against a running service', () => {
  let service: ChildProcess | undefined;
  let serviceLog = '';
  let base = '';
  let clone = '';
  let dataDir = '';

  before(async () => {
    const server = join(repoRoot, 'dist', 'app', 'server.js');
    if (!existsSync(server)) throw new Error(`${server} is missing: run \`npm run build\` first (npm test does)`);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'cmrender-readme-data-'));
    service = spawn(process.execPath, [server], {
      cwd: repoRoot,
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        WEBHOOK_ALLOW: '127.0.0.1',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    service.stdout!.setEncoding('utf8').on('data', (d: string) => (serviceLog = (serviceLog + d).slice(-8000)));
    service.stderr!.setEncoding('utf8').on('data', (d: string) => (serviceLog = (serviceLog + d).slice(-8000)));
    await until('the service is ready', async () => (await fetch(`${base}/readyz`)).status === 200, 180_000).catch(
      (e: Error) => {
        throw new Error(`${e.message}\n${serviceLog}`);
      },
    );
    // the clone's root as the reader has it, but whose new files land in a temporary directory
    clone = mkdtempSync(join(tmpdir(), 'cmrender-readme-'));
    for (const entry of readdirSync(repoRoot))
      if (entry !== '.git' && entry !== 'data') symlinkSync(join(repoRoot, entry), join(clone, entry));
    for (const b of fileBlocks) writeFileSync(join(clone, b.name), b.body);
  });

  after(async () => {
    if (service && service.exitCode === null) {
      const gone = once(service, 'exit');
      service.kill('SIGTERM');
      const t = setTimeout(() => service!.kill('SIGKILL'), 20_000);
      await gone;
      clearTimeout(t);
    }
    for (const d of [clone, dataDir]) if (d) rmSync(d, { recursive: true, force: true });
  });

  /** The environment the README's commands run in: the service's address, a free port for the webhook receiver. */
  async function sessionEnv(): Promise<NodeJS.ProcessEnv> {
    return {
      ...process.env,
      CMRENDER: base,
      HOOK_PORT: String(await freePort()),
      // npx must find the clone's own cmrender, never fetch a package of that name
      npm_config_offline: 'true',
      npm_config_yes: 'false',
    };
  }

  /** Checks a file the README wrote as a user would: it opens as what its extension says, with something in it. */
  function checkOutput(name: string): void {
    const path = join(clone, name);
    assert.ok(existsSync(path), `${name} was not written`);
    const bytes = readFileSync(path);
    const ext = name.slice(name.lastIndexOf('.') + 1);
    if (ext === 'png') {
      const png = PNG.sync.read(bytes);
      const colours = new Set<number>();
      for (let i = 0; i < png.data.length; i += 4 * 97) colours.add(png.data.readUInt32BE(i));
      assert.ok(colours.size > 1, `${name} is one flat colour`);
    } else if (ext === 'mp4') {
      const probe = spawnSync(
        'ffprobe',
        ['-v', 'error', '-show_entries', 'stream=codec_name,nb_frames', '-of', 'csv=p=0', path],
        {
          encoding: 'utf8',
        },
      );
      assert.match(probe.stdout, /^h264,\d+/, `${name}: ${probe.stdout}${probe.stderr}`);
    } else if (ext === 'gif') assert.equal(bytes.subarray(0, 6).toString('latin1'), 'GIF89a', name);
    else if (ext === 'glb') assert.equal(bytes.subarray(0, 4).toString('latin1'), 'glTF', name);
    else if (ext === 'svg') assert.match(bytes.toString('utf8'), /^<svg [\s\S]*<path d="M/, name);
    else assert.fail(`${name}: no check for .${ext}`);
  }

  test(
    'README: every shell block runs as written, in order, against the service, and writes what it says',
    { timeout: 900_000 },
    async () => {
      const script = [
        'set -euo pipefail',
        `trap 'echo "README.md block at line $README_LINE failed (exit $?)" >&2' ERR`,
      ];
      for (const b of shBlocks) script.push(`README_LINE=${b.line}`, b.body);
      writeFileSync(join(clone, '.readme-session.sh'), script.join('\n'));
      const { code, out } = await run('bash', ['.readme-session.sh'], {
        cwd: clone,
        env: await sessionEnv(),
        timeoutMs: 840_000,
      });
      assert.equal(code, 0, `${out}\n--- service log ---\n${serviceLog}`);
      // every output file a command names (`-o FILE`, or a client's last argument)
      const outputs = new Set<string>();
      for (const b of shBlocks)
        for (const m of b.body.matchAll(/(?:-o |^(?:python3|node) \S+ \S+ )([\w-]+\.(?:png|mp4|gif|glb|svg))\b/gm))
          outputs.add(m[1]!);
      assert.ok(outputs.size >= 8, [...outputs].join(' '));
      for (const name of outputs) checkOutput(name);
      // what the blocks print that a reader is told to look for
      assert.match(out, /^ok$/m, 'GET /healthz');
      assert.match(out, /"status":"error".*"code":"NAM003"/, 'the source that does not compile');
      assert.match(out, /^500$/m, "the failed job's status");
      assert.match(out, /^retry-after: \d+/im, 'Retry-After of a pending job');
      assert.match(out, /"code":"cancelled"/, 'the cancel');
      assert.match(out, /^event: end$/m, 'the event stream');
      assert.match(
        out,
        /^verified msg_[0-9a-f-]+: ready \/v1\/outputs\/[0-9a-f-]+\.mp4$/m,
        "the receiver's verified delivery",
      );
      assert.match(out, /^ok: examples\/wave\.cm$/m, 'cmrender check');
      // scene arguments: the signature, both cards ready with their args, the misspelt one refused
      assert.match(out, /^"scene":\{"name":"title_card"/m, "the title card's signature");
      assert.match(out, /"scene":"title_card","args":\{"name":"Ana Lima","accent":"#00a6fb"\},"status":"ready"/);
      assert.match(
        out,
        /"scene":"title_card","args":\{"name":"Seán O\\"Brien \\\\ \}","accent":"#ff3399"\},"status":"ready"/,
      );
      assert.match(out, /"code":"invalid_args","problems":\[\{"path":"args\.acent"/, 'the misspelt arg');
      // the idempotent POST answered the same job twice
      const ids = [...out.matchAll(/\{"job_id":"([0-9a-f-]+)","status":"pending","kind":"video"\}/g)].map((m) => m[1]);
      assert.ok(ids.length >= 2 && ids.at(-1) === ids.at(-2), `idempotent POSTs: ${ids.join(', ')}`);
    },
  );

  test('README: the clients exit non-zero when an answer is not what it should be', { timeout: 300_000 }, async () => {
    const env = await sessionEnv();
    writeFileSync(join(clone, 'broken.cm'), 'runner "0.0.3";\nscene s() -> Frame { compose [fgg] }\n');
    // a job that ends in error: the Python client says which code, and writes nothing
    const failed = await run('python3', ['frame.py', 'broken.cm', 'broken.png'], {
      cwd: clone,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(failed.code, 1, failed.out);
    assert.match(failed.out, /ended in error: NAM003/);
    assert.ok(!existsSync(join(clone, 'broken.png')));
    const failedJs = await run('node', ['render.mjs', 'broken.cm', 'broken.mp4'], {
      cwd: clone,
      env,
      timeoutMs: 120_000,
    });
    assert.equal(failedJs.code, 1, failedJs.out);
    assert.match(failedJs.out, /ended in error: NAM003/);
    // a POST that is not answered 202 (a base URL where nothing is routed: 404)
    const wrong = { ...env, CMRENDER: `${base}/nowhere` };
    const py404 = await run('python3', ['frame.py', 'examples/hello.cm', 'x.png'], {
      cwd: clone,
      env: wrong,
      timeoutMs: 60_000,
    });
    assert.equal(py404.code, 1, py404.out);
    assert.match(py404.out, /POST \/v1\/frame: HTTP 404/);
    const js404 = await run('node', ['render.mjs', 'examples/hello.cm', 'x.mp4'], {
      cwd: clone,
      env: wrong,
      timeoutMs: 60_000,
    });
    assert.equal(js404.code, 1, js404.out);
    assert.match(js404.out, /POST \/v1\/render: HTTP 404/);
  });

  test(
    "README: the webhook receiver refuses a forged or stale delivery and accepts the service's signature",
    { timeout: 120_000 },
    async () => {
      const env = await sessionEnv();
      const port = Number(env.HOOK_PORT);
      const secret = /SECRET = os\.environ\.get\("HOOK_SECRET", "(whsec_[^"]+)"\)/.exec(
        fileBlocks.find((b) => b.name === 'receiver.py')!.body,
      )![1]!;
      const receiver = run('python3', ['receiver.py', '--once'], { cwd: clone, env, timeoutMs: 100_000 });
      const url = `http://127.0.0.1:${port}/cmrender`;
      const body = JSON.stringify({ job_id: 'j1', kind: 'frame', status: 'ready', url: '/v1/outputs/j1.png' });
      const send = (headers: Record<string, string>) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body }).then(
          (r) => r.status,
        );
      await until('the receiver listens', async () => (await send({})) === 401, 30_000);
      const now = Math.floor(Date.now() / 1000);
      const signed = (ts: number, key = secret) => ({
        'webhook-id': 'msg_j1',
        'webhook-timestamp': String(ts),
        'webhook-signature': signStandard(key, 'msg_j1', ts, body),
      });
      assert.equal(await send(signed(now, 'whsec_' + Buffer.from('another key').toString('base64'))), 401, 'forged');
      assert.equal(await send(signed(now - 301)), 401, 'stale');
      assert.equal(
        await send({ ...signed(now), 'webhook-signature': `v1,AAAA ${signed(now)['webhook-signature']}` }),
        204,
      );
      const { code, out } = await receiver;
      assert.equal(code, 0, out);
      assert.match(out, /^verified msg_j1: ready \/v1\/outputs\/j1\.png$/m);
    },
  );
});
