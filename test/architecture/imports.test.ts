// The rooms of the code and their doors (docs/architecture.md): reads every import of src/, viewer/src and editor/src
// and fails on an edge the architecture forbids or on any import cycle among our modules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { repoRoot } from '../../src/paths.js';

/** relative imports that do not name their file with its `.js` extension */
const unstyled: string[] = [];

/** repository-relative path of each module -> the repository-relative modules it imports */
function importGraph(): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.ts$/.test(name) && !name.endsWith('.d.ts')) files.push(p);
    }
  };
  walk(join(repoRoot, 'src'));
  walk(join(repoRoot, 'viewer', 'src'));
  walk(join(repoRoot, 'editor', 'src'));
  const graph = new Map<string, string[]>();
  const spec =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|(?:^|\n)\s*import\s+['"]([^'"]+)['"]/g;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const deps: string[] = [];
    for (const m of text.matchAll(spec)) {
      const s = m[1] ?? m[2] ?? m[3];
      if (!s.startsWith('.')) continue;
      // one import style across the tree: a relative import names the file as Node will load it (`./x.js`)
      if (!/\.(js|json|css)$/.test(s)) unstyled.push(`${relative(repoRoot, file)}: ${s}`);
      const base = resolve(dirname(file), s.replace(/\.js$/, ''));
      const hit = [`${base}.ts`, join(base, 'index.ts')].find((c) => existsSync(c));
      assert.ok(hit, `${relative(repoRoot, file)}: cannot resolve ${s}`);
      deps.push(relative(repoRoot, hit));
    }
    graph.set(relative(repoRoot, file), deps);
  }
  return graph;
}

const graph = importGraph();
const under = (p: string, ...dirs: string[]) =>
  dirs.some((d) => p === d || p.startsWith(d.endsWith('.ts') ? d : `${d}/`));

/** What of rendering the server may reach: the Renderer interface, the join of a chunked video, failures' reasons. */
const SERVER_RENDER = ['src/render/renderer-port.ts', 'src/render/ffmpeg/join.ts', 'src/render/failure-reasons.ts'];

/** Where each room may reach (besides itself). The first matching room decides. */
const ROOMS: { room: string; may: string[] }[] = [
  // the language runs in Node and in the browser and knows nothing of us
  { room: 'src/lang', may: [] },
  { room: 'src/contract', may: [] },
  { room: 'src/paths.ts', may: [] },
  // every process's settings, read from the environment: the contract's facts (limits, hardware names) only
  { room: 'src/config', may: ['src/contract'] },
  // the drawing page: only the language's value surface (the value tree, its design frame, colours, runner order)
  // and the video pixel format it converts its frames to (src/contract/yuv.ts)
  {
    room: 'viewer/src',
    may: [
      'src/lang/value.ts',
      'src/lang/frame.ts',
      'src/lang/color.ts',
      'src/lang/runners.ts',
      'src/lang/glyph-detail.ts',
      'src/lang/drawing-limits.ts',
      'src/contract/yuv.ts',
    ],
  },
  // rendering: the language, the neutral facts, and the page API's types; never the server
  { room: 'src/render', may: ['src/lang', 'src/contract', 'src/config', 'src/paths.ts', 'viewer/src/page-api.ts'] },
  // the entry points together (`npm start`, `npm run worker`, `npm run runner`) and what they share: the composition
  // roots, the only modules that build the real renderers (the page's, the export worker's, the one that picks by
  // kind) and the join of a chunked video, and hand them to the server, the Redis worker or the runner
  {
    room: 'src/entry',
    may: [
      'src/server',
      'src/runner',
      'src/contract',
      'src/config',
      'src/lang',
      'src/paths.ts',
      'src/render/renderer-port.ts',
      'src/render/chromium-renderer.ts',
      'src/render/by-kind.ts',
      'src/render/ffmpeg/join.ts',
      'src/render/chunked-video.ts',
      'src/export/export-renderer.ts',
    ],
  },
  // inside the server, its rooms (docs/architecture.md, src/server): the job domain knows nothing of HTTP, routes or
  // metrics; the stores and the deliveries it uses know only the record's shape; HTTP and the routes sit above it all
  {
    room: 'src/server/jobs',
    may: [
      ...SERVER_RENDER,
      'src/contract',
      'src/config',
      'src/lang',
      'src/server/storage',
      'src/server/webhooks',
      'src/server/durability',
      'src/server/redis/connection.ts',
    ],
  },
  {
    room: 'src/server/storage',
    // the record's shape, and its one writer (the output budget's evictions remove records through it)
    may: [
      'src/contract',
      'src/config',
      'src/render/renderer-port.ts',
      'src/server/jobs/store/port.ts',
      'src/server/jobs/job-records.ts',
    ],
  },
  {
    room: 'src/server/webhooks',
    may: [
      'src/contract',
      'src/config',
      'src/server/jobs/store/port.ts',
      'src/server/jobs/job-records.ts',
      'src/server/jobs/job-view.ts',
    ],
  },
  { room: 'src/server/durability', may: ['src/contract', 'src/server/jobs/store/port.ts'] },
  // Redis mode's wiring and its worker's own small HTTP server (health, metrics)
  {
    room: 'src/server/redis',
    may: [
      'src/contract',
      'src/config',
      'src/render/renderer-port.ts',
      'src/server/jobs',
      'src/server/storage',
      'src/server/backend.ts',
      'src/server/metrics',
      'src/server/http/server-timeouts.ts',
    ],
  },
  {
    room: 'src/server/metrics',
    may: ['src/contract', 'src/render/renderer-port.ts', 'src/server/jobs', 'src/server/webhooks'],
  },
  // the HTTP plumbing: the domain's types and errors, never a route or a metric
  {
    room: 'src/server/http',
    may: [
      'src/contract',
      'src/config',
      'src/lang',
      'src/server/jobs',
      'src/server/storage',
      'src/server/redis/outage.ts',
    ],
  },
  {
    room: 'src/server/routes',
    may: [
      'src/contract',
      'src/config',
      'src/lang',
      'src/mcp',
      'src/paths.ts',
      'src/render/renderer-port.ts',
      'src/server/http',
      'src/server/jobs',
      'src/server/storage',
      'src/server/webhooks',
      'src/server/metrics',
      'src/server/llms-txt.ts',
      'src/server/markdown-html.ts',
    ],
  },
  // the server's composition (app.ts, services.ts, backend.ts, the OpenAPI writer) reaches every room above; the
  // server reaches rendering through the Renderer interface only, and the join of a chunked video's segments
  // (an ffmpeg concat the join item runs: chunk planning and joining live above the renderer)
  {
    room: 'src/server',
    may: ['src/contract', 'src/config', 'src/lang', 'src/paths.ts', ...SERVER_RENDER, 'src/mcp'],
  },
  // the export library; its worker renderer implements the Renderer interface (types only from rendering) and
  // starts its thread the way rendering starts its own (worker-thread.ts)
  {
    room: 'src/export',
    may: ['src/contract', 'viewer/src/meshes', 'src/render/renderer-port.ts', 'src/render/worker-thread.ts'],
  },
  // the standalone runner: the service's schemas and HTTP plumbing, rendering through the Renderer interface (its
  // entry point, src/entry/runner.ts, builds the real renderer from the service's configuration)
  {
    room: 'src/runner',
    may: [
      'src/server/http',
      'src/server/jobs/scene-args.ts',
      'src/contract',
      'src/render/renderer-port.ts',
      'src/render/failure-reasons.ts',
    ],
  },
  // the MCP tools for agents: written against their own client port (in-process or HTTP), the language for the
  // reference and a clip's duration; never the server, so the CLI can serve them over stdio
  { room: 'src/mcp', may: ['src/lang', 'src/contract', 'src/paths.ts'] },
  // and `cmrender open`'s composition root (the whole service in the CLI's process, loaded only by that command)
  {
    room: 'src/cli',
    may: [
      'src/lang',
      'src/contract',
      'src/config',
      'src/paths.ts',
      'src/render',
      'src/export',
      'src/mcp',
      'src/entry/open-service.ts',
    ],
  },
  // the editor page: the whole language (it compiles and evaluates in the browser), the drawing page's drawer and
  // the service's output size rule and limits (its export sizes a clip as the renderer does); it reaches the
  // service over HTTP only, never through src/server or src/render
  { room: 'editor/src', may: ['src/lang', 'viewer/src', 'src/contract/output-size.ts', 'src/contract/limits.ts'] },
];

function roomOf(p: string): { room: string; may: string[] } | undefined {
  return ROOMS.find((r) => under(p, r.room));
}

test('one import style: every relative import names its file with the .js extension', () => {
  assert.deepEqual(unstyled, []);
});

test('every module belongs to a room', () => {
  const homeless = [...graph.keys()].filter((p) => !roomOf(p));
  assert.deepEqual(homeless, []);
});

test('no import crosses a wall: each room reaches only what docs/architecture.md allows', () => {
  const bad: string[] = [];
  for (const [from, deps] of graph) {
    const r = roomOf(from)!;
    for (const to of deps) {
      if (under(to, r.room) || r.may.some((m) => under(to, m))) continue;
      bad.push(`${from} -> ${to}`);
    }
  }
  assert.deepEqual(bad, []);
});

test('no import cycle among our modules', () => {
  // Tarjan's strongly connected components: any component of more than one module (or a self-import) is a cycle
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(comp.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  assert.deepEqual(cycles, []);
});

test('the rules see real edges (the reader is not blind)', () => {
  assert.ok(graph.get('src/render/chromium-renderer.ts')?.includes('src/render/prepare.ts'));
  assert.ok(graph.get('viewer/src/page-api.ts')?.includes('src/lang/value.ts'));
  assert.ok((graph.get('src/lang/index.ts') ?? []).length > 3);
  assert.ok(graph.get('editor/src/preview.ts')?.includes('viewer/src/page-api.ts'));
});

test('the job, storage, durability and Redis rooms import nothing of Fastify: HTTP lives in routes/ and http/', () => {
  const rooms = ['jobs', 'storage', 'durability', 'redis', 'webhooks', 'metrics'].map((r) =>
    join(repoRoot, 'src', 'server', r),
  );
  const bad: string[] = [];
  for (const dir of rooms)
    // recursive: a room's subfolders (jobs/queue, jobs/store) are the room too
    for (const name of readdirSync(dir, { recursive: true }) as string[]) {
      if (!name.endsWith('.ts')) continue;
      const text = readFileSync(join(dir, name), 'utf8');
      if (/from\s+['"](fastify|@fastify\/[^'"]+|fastify-[^'"]+)['"]/.test(text))
        bad.push(relative(repoRoot, join(dir, name)));
    }
  assert.deepEqual(bad, []);
});

test('the job domain imports nothing of HTTP, the routes or the metrics (src/server/jobs)', () => {
  const bad = [...graph]
    .filter(([from]) => under(from, 'src/server/jobs'))
    .flatMap(([from, deps]) =>
      deps
        .filter((to) => under(to, 'src/server/http', 'src/server/routes', 'src/server/metrics'))
        .map((to) => `${from} -> ${to}`),
    );
  assert.deepEqual(bad, []);
});
