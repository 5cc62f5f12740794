// Scene arguments over HTTP (real Chromium and ffmpeg): `args` on /v1/frame, /v1/render, /v1/gif and /v1/check, one
// accepted and one refused form per row of the JSON table, the limits at and past their edges, 400 invalid_args with
// one entry per problem and nothing queued, the job's view (scene, args), the render cache and the Idempotency-Key
// with args, and unknown params keys refused on every enqueueing route.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { fullRenderer, startApp, type TestApp } from '../../helpers/app.js';
import { post, runJob, waitJob } from '../../helpers/job-client.js';
import { probe } from '../../../src/render/ffmpeg/probe.js';
import { LIMITS } from '../../../src/contract/limits.js';
import { spawnSync } from 'node:child_process';

let t: TestApp;
before(async () => {
  t = await startApp({ renderer: fullRenderer(), ownsRenderer: true, config: { renderCache: true } });
});
after(() => t?.close());

/** A full-frame rectangle of `fill` (its design frame is the rectangle: every pixel is the fill). */
const CARD = (params: string, fill: string) =>
  `runner "0.0.3";\nuse std.shapes.*;\nscene card(${params}) -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: ${fill})]\n}\n`;
const SMALL = { width: 64 };

async function centre(body: unknown): Promise<[number, number, number]> {
  const r = await runJob(t.app, '/v1/frame', body);
  const job = r.json();
  assert.equal(job.status, 'ready', r.body);
  const png = PNG.sync.read((await t.app.inject({ url: job.url })).rawPayload);
  const i = (Math.floor(png.height / 2) * png.width + Math.floor(png.width / 2)) * 4;
  return [png.data[i]!, png.data[i + 1]!, png.data[i + 2]!];
}

/** Jobs accepted so far, by /metrics (every kind added up). */
async function accepted(): Promise<number> {
  const text = (await t.app.inject({ url: '/metrics' })).body;
  const lines = [...text.matchAll(/^cmrender_jobs_accepted_total(?:\{[^}]*\})? (\d+)/gm)];
  assert.ok(lines.length > 0, 'the accepted jobs counter is exported');
  return lines.reduce((n, m) => n + Number(m[1]), 0);
}

async function refusedArgs(
  url: string,
  body: unknown,
): Promise<{ path: string; expected: string; given: string; message: string }[]> {
  const r = await post(t.app, url, body);
  assert.equal(r.statusCode, 400, r.body);
  const e = r.json();
  assert.equal(e.code, 'invalid_args', r.body);
  assert.ok(Array.isArray(e.problems) && e.problems.length > 0, r.body);
  for (const p of e.problems)
    for (const k of ['path', 'expected', 'given', 'message']) assert.equal(typeof p[k], 'string');
  return e.problems;
}

test('the same source with args {accent: "#00ff00"} and without: green, then the default colour, at the centre', async () => {
  const source = CARD('accent: Color = #ff3399', 'accent');
  assert.deepEqual(await centre({ source, params: SMALL, args: { accent: '#00ff00' } }), [0, 255, 0]);
  assert.deepEqual(await centre({ source, params: SMALL }), [0xff, 0x33, 0x99]);
});

test('a name of O"Brien \\ }; compose [] // renders ready; the job view names the scene and its args', async () => {
  const name = 'O"Brien \\ }; compose [] //';
  const source = `runner "0.0.3";\nuse std.shapes.*;\nuse std.mesh3d.*;\nuse std.text;\nscene card(name: String = "Ana") -> Frame {\n  compose [rect(width: 640px, height: 360px, fill: #ffffff), extrude(text.glyph(name, size: 60px), depth: 4px)]\n}\n`;
  const r = await runJob(t.app, '/v1/frame', { source, params: SMALL, args: { name } });
  const job = r.json();
  assert.equal(job.status, 'ready', r.body);
  assert.equal(job.scene, 'card');
  assert.deepEqual(job.args, { name });
});

test('String: a JSON string; a number refused', async () => {
  const source = CARD('label: String = "x"', '#ff0000');
  assert.equal(
    (await runJob(t.app, '/v1/frame', { source, params: SMALL, args: { label: 'y' } })).json().status,
    'ready',
  );
  const [p] = await refusedArgs('/v1/frame', { source, args: { label: 3 } });
  assert.equal(p!.path, 'args.label');
  assert.match(p!.message, /must be a string/);
});

test('Number: a JSON number (the output width follows it); a string refused', async () => {
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene card(w: Number = 100) -> Frame {\n  compose [rect(width: w * 1px, height: 60px, fill: #ff0000)]\n}\n`;
  const job = (await runJob(t.app, '/v1/frame', { source, args: { w: 240 } })).json();
  assert.equal(job.status, 'ready');
  assert.equal(job.width, 240);
  assert.equal((await refusedArgs('/v1/frame', { source, args: { w: '240' } }))[0]!.path, 'args.w');
});

test('Bool: true or false picks the branch; "true" refused', async () => {
  const source = CARD('green: Bool = false', 'if green { #00ff00 } else { #ff0000 }');
  assert.deepEqual(await centre({ source, params: SMALL, args: { green: true } }), [0, 255, 0]);
  assert.match((await refusedArgs('/v1/frame', { source, args: { green: 'true' } }))[0]!.message, /true or false/);
});

test('a unit type (Length): "320px" sets the output width; 320 and "320deg" refused', async () => {
  const source = `runner "0.0.3";\nuse std.shapes.*;\nscene card(w: Length = 100px) -> Frame {\n  compose [rect(width: w, height: 60px, fill: #ff0000)]\n}\n`;
  assert.equal((await runJob(t.app, '/v1/frame', { source, args: { w: '320px' } })).json().width, 320);
  await refusedArgs('/v1/frame', { source, args: { w: 320 } });
  assert.match((await refusedArgs('/v1/frame', { source, args: { w: '320deg' } }))[0]!.message, /Length literal/);
});

test('a unit type (Duration) on /v1/render: an argument named duration sets the video\'s length; "1" refused', async () => {
  const source = CARD('duration: Duration = 3s', '#ff0000');
  const r = await runJob(t.app, '/v1/render', { source, params: { width: 64, fps: 10 }, args: { duration: '500ms' } });
  const job = r.json();
  assert.equal(job.status, 'ready', r.body);
  const dir = mkdtempSync(join(tmpdir(), 'args-video-'));
  const file = join(dir, 'v.mp4');
  writeFileSync(file, (await t.app.inject({ url: job.url })).rawPayload);
  assert.equal((await probe(file)).frames, 5);
  await refusedArgs('/v1/render', { source, args: { duration: '1' } });
});

test('Color: "oklch(...)" and "#rrggbb" accepted; "green" refused', async () => {
  const source = CARD('accent: Color = #ff3399', 'accent');
  const [r, g, b] = await centre({ source, params: SMALL, args: { accent: 'oklch(0.7, 0.1, 200)' } });
  assert.ok(g > r && b > r, `oklch(0.7, 0.1, 200) is a teal: ${[r, g, b]}`);
  assert.match((await refusedArgs('/v1/frame', { source, args: { accent: 'green' } }))[0]!.message, /colour literal/);
});

test('List<T>: an array of T (the second element drawn); a wrong element refused at its index', async () => {
  const source = CARD('fills: List<Color> = [#ff0000, #ff0000]', 'fills[1]');
  assert.deepEqual(await centre({ source, params: SMALL, args: { fills: ['#ff0000', '#0000ff'] } }), [0, 0, 255]);
  assert.equal((await refusedArgs('/v1/frame', { source, args: { fills: ['#ff0000', 7] } }))[0]!.path, 'args.fills[1]');
});

test('records: an object with the declared fields; a misspelt field refused with did-you-mean', async () => {
  const source = CARD('style: {fill: Color} = {fill: #ff0000}', 'style.fill');
  assert.deepEqual(await centre({ source, params: SMALL, args: { style: { fill: '#00ff00' } } }), [0, 255, 0]);
  const problems = await refusedArgs('/v1/frame', { source, args: { style: { fil: '#00ff00' } } });
  assert.deepEqual(
    problems.map((p) => p.message),
    ["args.style.fil is not a field of {fill: Color}; did you mean 'fill'?", 'args.style.fill is missing (Color)'],
  );
});

test('invalid_args: one entry per problem, an unknown name with did-you-mean, nothing queued', async () => {
  const source = CARD('name: String, accent: Color = #ff3399', 'accent');
  const before = await accepted();
  const problems = await refusedArgs('/v1/gif', { source, args: { acent: '#00ff00', name: 1 } });
  assert.deepEqual(
    problems.map((p) => [p.path, p.given]),
    [
      ['args.acent', 'the string "#00ff00"'],
      ['args.name', 'the number 1'],
    ],
  );
  assert.match(problems[0]!.message, /did you mean 'accent'\?/);
  // a required parameter missing, args on a scene without parameters, args that are not an object
  assert.equal((await refusedArgs('/v1/frame', { source, args: { accent: '#00ff00' } }))[0]!.path, 'args.name');
  assert.match(
    (await refusedArgs('/v1/frame', { source: CARD('', '#ff0000'), args: { x: 1 } }))[0]!.message,
    /has no parameters/,
  );
  assert.equal((await refusedArgs('/v1/frame', { source, args: ['Ana'] }))[0]!.path, 'args');
  assert.equal(await accepted(), before, 'no job was accepted');
});

test('limits: args of 64 KiB of JSON, strings of 4,096 characters, lists of 1,000 elements, at and past each edge', async () => {
  const source = CARD('s: String = "", l: List<Number> = []', '#ff0000');
  const ok = async (args: unknown) => {
    const r = await post(t.app, '/v1/frame', { source, params: SMALL, args });
    assert.equal(r.statusCode, 202, r.body);
    await waitJob(t.app, r.json().job_id);
  };
  await ok({ s: 'a'.repeat(4096) });
  assert.match((await refusedArgs('/v1/frame', { source, args: { s: 'a'.repeat(4097) } }))[0]!.message, /at most 4096/);
  await ok({ l: new Array(1000).fill(1) });
  assert.match(
    (await refusedArgs('/v1/frame', { source, args: { l: new Array(1001).fill(1) } }))[0]!.message,
    /at most 1000/,
  );
  // at 64 KiB the size passes (the unknown name t is then the problem), one byte more is refused for its size alone
  const exact = { s: 'a'.repeat(4000), t: 'x'.repeat(65536 - 4000 - 15) };
  assert.equal(JSON.stringify(exact).length, 65536);
  const r = await post(t.app, '/v1/frame', { source, args: exact });
  assert.equal(r.json().problems[0].path, 'args.t', 'at 64 KiB the size passes; the unknown name is the problem');
  const past = { ...exact, t: exact.t + 'x' };
  assert.deepEqual(
    (await refusedArgs('/v1/frame', { source, args: past })).map((p) => p.message),
    ['args is 65537 bytes of JSON; at most 65536 are accepted'],
  );
});

test('POST /v1/check answers the signature and the JSON Schema of the args; bad args are invalid_args', async () => {
  const source = CARD('name: String, hold: Duration = 2s', '#ff0000');
  const r = await post(t.app, '/v1/check', { source, args: { name: 'Ana' } });
  assert.equal(r.statusCode, 200, r.body);
  const c = r.json();
  assert.equal(c.ok, true);
  assert.equal(c.scene.name, 'card');
  assert.deepEqual(
    c.scene.params.map((p: { name: string; type: string; default: unknown; required: boolean }) => [
      p.name,
      p.type,
      p.default,
      p.required,
    ]),
    [
      ['name', 'String', null, true],
      ['hold', 'Duration', '2s', false],
    ],
  );
  assert.equal(c.scene.schema.$schema, 'https://json-schema.org/draft/2020-12/schema');
  assert.deepEqual(c.scene.schema.required, ['name']);
  assert.equal(c.scene.schema.properties.hold.default, '2s');
  // without args, the scene with a required parameter does not render (REN001) and no scene is described
  const without = (await post(t.app, '/v1/check', { source })).json();
  assert.deepEqual(
    without.diagnostics.map((d: { code: string }) => d.code),
    ['REN001'],
  );
  assert.equal(without.scene, null);
  await refusedArgs('/v1/check', { source, args: { name: 'Ana', hold: '2' } });
});

test('the render cache and the Idempotency-Key include args: other args render again, another key order is one', async () => {
  const source = CARD('accent: Color = #ff3399', 'accent');
  const a = (await runJob(t.app, '/v1/frame', { source, params: SMALL, args: { accent: '#123456' } })).json();
  const b = (await runJob(t.app, '/v1/frame', { source, params: SMALL, args: { accent: '#654321' } })).json();
  assert.equal(a.cached, undefined);
  assert.equal(b.cached, undefined, 'args that differ: a render of its own');
  const src2 = CARD('accent: Color = #ff3399, edge: Color = #000000', 'accent');
  const c = (
    await runJob(t.app, '/v1/frame', { source: src2, params: SMALL, args: { accent: '#00ff00', edge: '#111111' } })
  ).json();
  const d = (
    await runJob(t.app, '/v1/frame', { source: src2, params: SMALL, args: { edge: '#111111', accent: '#00ff00' } })
  ).json();
  assert.equal(c.cached, undefined);
  assert.equal(d.cached, true, 'the same args in another key order: one render');
  const key = (k: string, args: unknown) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/frame',
      headers: { 'content-type': 'application/json', 'idempotency-key': k },
      payload: JSON.stringify({ source: src2, params: SMALL, args }),
    });
  const first = await key('args-key-1', { accent: '#00ff00', edge: '#222222' });
  assert.equal(first.statusCode, 202);
  const again = await key('args-key-1', { edge: '#222222', accent: '#00ff00' });
  assert.equal(again.json().job_id, first.json().job_id);
  const other = await key('args-key-1', { edge: '#333333', accent: '#00ff00' });
  assert.equal(other.statusCode, 422);
  assert.equal(other.json().code, 'idempotency_mismatch');
  await waitJob(t.app, first.json().job_id);
});

test('unknown params keys are refused on every enqueueing route, with did-you-mean', async () => {
  const source = CARD('', '#ff0000');
  const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><path d="M1 1 L9 1 L5 9 Z"/></svg>';
  const cases: [string, unknown, string][] = [
    [
      '/v1/frame',
      { source, params: { widht: 64 } },
      "params.widht is not a parameter of this kind; did you mean 'width'?",
    ],
    ['/v1/render', { source, params: { fpz: 10 } }, "params.fpz is not a parameter of this kind; did you mean 'fps'?"],
    [
      '/v1/gif',
      { source, params: { colours: 16 } },
      "params.colours is not a parameter of this kind; did you mean 'colors'?",
    ],
    [
      '/v1/mesh',
      { source: svg, params: { dept: 3 } },
      "params.dept is not a parameter of this kind; did you mean 'depth'?",
    ],
    ['/v1/vectorize', { image: 'iVBORw0KGgo=', params: { name: 1 } }, 'params.name is not a parameter of this kind'],
  ];
  for (const [url, body, message] of cases) {
    const r = await post(t.app, url, body);
    assert.equal(r.statusCode, 400, `${url}: ${r.body}`);
    assert.equal(r.json().code, 'invalid_params', url);
    assert.ok(r.json().error.startsWith(message), `${url}: ${r.json().error}`);
  }
});

test("a chunked video's every chunk evaluates with the args (a scene that renders only with them), green to its end", async () => {
  // accent has no default: without the args no chunk could compile (REN001)
  const source = CARD('accent: Color', 'accent');
  const frames = 2 * LIMITS.videoChunkFrames;
  const r = await runJob(t.app, '/v1/render', {
    source,
    params: { width: 64, fps: 10, duration: frames / 10 },
    args: { accent: '#00ff00' },
  });
  const job = r.json();
  assert.equal(job.status, 'ready', r.body);
  const dir = mkdtempSync(join(tmpdir(), 'args-chunked-'));
  const file = join(dir, 'v.mp4');
  writeFileSync(file, (await t.app.inject({ url: job.url })).rawPayload);
  assert.equal((await probe(file)).frames, frames);
  // the last frame (of the last chunk), as raw RGB
  const last = spawnSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    file,
    '-vf',
    `select=eq(n\\,${frames - 1})`,
    '-frames:v',
    '1',
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    '-',
  ]);
  assert.equal(last.status, 0, String(last.stderr));
  const px = last.stdout as Buffer;
  const mid = (Math.floor(36 / 2) * 64 + 32) * 3;
  const [rr, gg, bb] = [px[mid]!, px[mid + 1]!, px[mid + 2]!];
  assert.ok(gg > 200 && rr < 40 && bb < 40, `the last frame's centre is green: ${[rr, gg, bb]}`);
});
