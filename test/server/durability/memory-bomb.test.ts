// Row 4 of issue 32: a 50 KB source that is gigabytes of JSON. One 50,000-character string shared through 12 levels
// of doubling arrays is 8,191 value nodes (under EVL008's 100,000) but 4,096 uses of the string: 205 MB of JSON a
// frame. On d7952b0 every frame was serialised whole, read ahead 64 at a time and sent to Chromium (the API went to
// gigabytes, Chromium crashed). Now a frame's value has a byte budget (EVL013, MAX_VALUE_BYTES), counted as the tree
// is walked, and a job that passes it ends `memory_budget` at once: against the real service as a child process, a
// frame job, a 2 s video and a video whose frames pass the budget only from 0.5 s on each end so within seconds of
// their start, and the API process's peak RSS (VmHWM, /proc/PID/status) grows by less than BOUND_MB over its peak
// after one ordinary frame. /v1/check reports EVL013 where the value is over the budget at t = 0.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess, SQUARE } from '../../helpers/service-process.js';

/** The API's peak RSS may grow this much over its peak after one ordinary frame (d7952b0: +2,000 MB and more). */
const BOUND_MB = 150;
/** A failed bomb job ends within this of its creation (d7952b0: never, or after Chromium crashed at 72 s). */
const WITHIN_MS = 15_000;

const LONG = 'x'.repeat(50_000);
function bomb(late: boolean): string {
  let src = `runner "0.0.3";\nuse std.anim.*;\nlet s = "${LONG}";\nscene bomb(duration: Duration = 2s) -> Frame {\n`;
  src += '  let k = animate { 0s => 0, 1s => 1 };\n  let a1 = [s, s];\n';
  for (let i = 2; i <= 12; i++) src += `  let a${i} = [a${i - 1}, a${i - 1}];\n`;
  // late: a small value at first, the bomb from 0.5 s on (caught by the evaluation thread, not at compile)
  src += late ? '  if k > 0.5 { a12 } else { [s] }\n}\n' : '  a12\n}\n';
  return src;
}

let s: ServiceProcess;
let dir: string;
let baseline = 0;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cmrender-bomb-'));
  // a loaded machine (load 30 and more) can take over a minute to warm a service up
  s = await ServiceProcess.start(dir, {}, 180_000);
  const ok = await s.waitJob(await s.enqueue('/v1/frame', { source: SQUARE(), params: { width: 64, height: 64 } }));
  assert.equal(ok.body.status, 'ready', ok.text);
  baseline = s.peakRss();
});
after(async () => {
  await s?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const mb = (n: number) => Math.round(n / 1024 / 1024);

async function failsWithMemoryBudget(path: string, body: unknown) {
  const id = await s.enqueue(path, body);
  const j = await s.waitJob(id, 60_000);
  assert.equal(j.body.status, 'error', j.text);
  assert.equal(j.body.code, 'memory_budget', j.text);
  assert.ok(
    j.body.diagnostics?.some((d: { code: string }) => d.code === 'EVL013'),
    `the diagnostic says where: ${j.text.slice(0, 400)}`,
  );
  const took = j.body.completed_at - j.body.created_at;
  assert.ok(took < WITHIN_MS, `ended ${took} ms after its creation`);
  const grew = s.peakRss() - baseline;
  console.log(`${path}: ended in ${took} ms, API peak RSS ${mb(baseline)} -> ${mb(s.peakRss())} MB`);
  assert.ok(grew < BOUND_MB * 1024 * 1024, `API peak RSS ${mb(baseline)} -> ${mb(s.peakRss())} MB`);
}

test('/v1/check reports the bomb as EVL013 (over the byte budget at t = 0); the late one is clean there', async () => {
  const r = await s.req('POST', '/v1/check', { source: bomb(false) });
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(
    r.body.diagnostics.map((d: { code: string }) => d.code),
    ['EVL013'],
  );
  const late = await s.req('POST', '/v1/check', { source: bomb(true) });
  assert.equal(late.status, 200);
  // clean of errors; its `if n > 0.5` on an animated value is ANI001, the warning that cmotion refuses such a source
  assert.deepEqual(
    late.body.diagnostics.map((d: { code: string }) => d.code),
    ['ANI001'],
    late.text,
  );
});

test('the bomb as a frame job ends memory_budget within seconds; the API stays under its bound', async () => {
  await failsWithMemoryBudget('/v1/frame', { source: bomb(false) });
  await failsWithMemoryBudget('/v1/frame', { source: bomb(true), params: { at: 1 } });
});

test('the bomb as a 2 s video, and one that passes the budget only from 0.5 s, end memory_budget', async () => {
  await failsWithMemoryBudget('/v1/render', { source: bomb(false), params: { duration: 2, width: 320, height: 180 } });
  await failsWithMemoryBudget('/v1/render', { source: bomb(true), params: { duration: 2, width: 320, height: 180 } });
  // the service still renders afterwards, and /healthz answered throughout
  const ok = await s.waitJob(await s.enqueue('/v1/frame', { source: SQUARE('#00ff00'), params: { width: 64 } }));
  assert.equal(ok.body.status, 'ready', ok.text);
  assert.equal((await s.req('GET', '/healthz')).status, 200);
});
