// The deploy files, read against the code (no Docker or Kubernetes here): every compose file and Kubernetes manifest
// parses; every environment variable they give cmrender is a real setting of src/config/settings.ts; the ports and
// probe paths they use are served by the app (the API built in this process, a worker's own HTTP server started
// here); every Service, ConfigMap, volume and host they reference is defined (or, for the keys Secret, documented as
// created outside); images are pinned; compose waits for what it needs and restarts on failure; Kubernetes has Redis,
// fsGroup, pull policies, readiness that does not flap, and keeps /metrics and /test off its public door.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { buildApp } from '../../src/server/app.js';
import { CONFIG_DOC, defaultConfig } from '../../src/config/settings.js';
import { startWorkerHttp } from '../../src/server/redis/worker-http.js';
import { WorkerMetrics } from '../../src/server/metrics/worker-metrics.js';
import { FakeRenderer, silentLog } from '../helpers/app.js';
import { repoRoot } from '../helpers/shared.js';

type Obj = Record<string, any>;

const SETTINGS = new Set(CONFIG_DOC.map((e) => e.env));
/** variables the AWS SDK reads, which the configuration's own documentation names (STORAGE_URL) */
const documented = (name: string) => CONFIG_DOC.some((e) => e.doc.includes(name));
const realSetting = (name: string) => SETTINGS.has(name) || (name.startsWith('AWS_') && documented(name));
const DEFAULT_PORT = defaultConfig().port;
const CMRENDER_IMAGE = /^(?:\S+\/)?cmrender:(\S+)$/;
const version = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;

/** An image with a tag that names one version: not `latest`, not none. */
function pinned(image: string): boolean {
  const m = /^(.+):([^:/]+)$/.exec(image);
  return Boolean(m) && m![2] !== 'latest';
}

// the API as npm start builds it (its routes), and a render worker's own HTTP server (METRICS_PORT)
const dataDir = mkdtempSync(join(tmpdir(), 'cmrender-deploy-'));
const app = await buildApp({
  config: { ...defaultConfig(), dataDir },
  renderer: new FakeRenderer(),
  logger: silentLog,
});
await app.ready();
const worker = await startWorkerHttp({
  host: '127.0.0.1',
  port: 0,
  metrics: new WorkerMetrics({ renderer: () => undefined, inProgress: () => 0 }),
  health: () => null,
  readiness: () => null,
  requestTimeoutMs: 10_000,
  headersTimeoutMs: 5_000,
});
after(async () => {
  await app.close();
  await worker.close();
  await rm(dataDir, { recursive: true, force: true });
});
async function apiServes(path: string, method: 'GET' | 'POST' = 'GET'): Promise<boolean> {
  return (await app.inject({ method, url: path, payload: method === 'POST' ? {} : undefined })).statusCode !== 404;
}
async function workerServes(path: string): Promise<boolean> {
  const r = await fetch(worker.address + path);
  await r.arrayBuffer();
  return r.status !== 404;
}

/** a route under each published prefix */
const UNDER: Record<string, [string, 'GET' | 'POST']> = {
  '/v1/': ['/v1/check', 'POST'],
  '/editor/': ['/editor/editor.js', 'GET'],
};

const composeFiles = readdirSync(repoRoot).filter((f) => /^docker-compose.*\.ya?ml$/.test(f));
const manifests = readdirSync(join(repoRoot, 'deploy')).filter((f) => /\.ya?ml$/.test(f));

test('there are compose files and Kubernetes manifests to check', () => {
  assert.ok(composeFiles.length >= 2, composeFiles.join(', '));
  assert.ok(manifests.includes('kubernetes.yaml'), manifests.join(', '));
});

for (const file of composeFiles) {
  test(`${file}: cmrender's settings are real, dependencies are waited for, restarts and pinned images`, async () => {
    const doc = parse(readFileSync(join(repoRoot, file), 'utf8'), { merge: true }) as Obj;
    const services = doc.services as Obj;
    const names = new Set(Object.keys(services));
    for (const [name, s] of Object.entries(services) as [string, Obj][]) {
      const ours = s.build !== undefined || CMRENDER_IMAGE.test(s.image ?? '');
      assert.ok(s.image && pinned(s.image), `${name}: image ${s.image} is not pinned`);
      if (ours) assert.equal(CMRENDER_IMAGE.exec(s.image)![1], version, `${name}: cmrender's tag is the version`);
      assert.match(String(s.restart), /^(unless-stopped|always|on-failure(:\d+)?)$/, `${name}: restart policy`);
      for (const [dep, how] of Object.entries((s.depends_on ?? {}) as Obj)) {
        assert.ok(!Array.isArray(s.depends_on), `${name}: depends_on without conditions`);
        assert.ok(names.has(dep), `${name} depends on ${dep}, which is not defined`);
        const target = services[dep] as Obj;
        const condition = (how as Obj).condition;
        // a one-shot container is waited for to finish, a server to be healthy (or at least started)
        if (target.restart === 'on-failure' && !target.ports && !target.healthcheck)
          assert.equal(condition, 'service_completed_successfully', `${name} → ${dep}`);
        else if (target.healthcheck) assert.equal(condition, 'service_healthy', `${name} → ${dep}`);
        else assert.equal(condition, 'service_started', `${name} → ${dep}`);
      }
      if (!ours) continue;
      const env = (s.environment ?? {}) as Obj;
      for (const k of Object.keys(env)) assert.ok(realSetting(k), `${name}: ${k} is not a setting of config.ts`);
      // the hosts cmrender is pointed at are services of this file, waited for
      for (const v of Object.values(env)) {
        const host = /^(?:redis|https?):\/\/([^:/]+)/.exec(String(v))?.[1];
        if (host) assert.ok(names.has(host), `${name}: ${v} names ${host}, not a service here`);
      }
      if (env.REDIS_URL) assert.ok(s.depends_on?.redis, `${name} uses Redis: it waits for it`);
      const port = Number(env.PORT ?? DEFAULT_PORT);
      for (const p of (s.ports ?? []) as string[])
        assert.equal(Number(String(p).split(':').at(-1)), port, `${name}: ${p} is not the port it listens on`);
      const check = JSON.stringify(s.healthcheck?.test ?? '');
      const url = /http:\/\/127\.0\.0\.1:(\d+)(\/\w+)/.exec(check);
      if (url) {
        assert.equal(Number(url[1]), Number(env.METRICS_PORT), `${name}: its healthcheck asks METRICS_PORT`);
        assert.ok(await workerServes(url[2]!), `${name}: ${url[2]} is not served`);
      }
    }
  });
}

test('kubernetes.yaml: Redis, settings, probes, fsGroup, pull policies, the keys Secret and a public door without /metrics or /test', async () => {
  const text = readFileSync(join(repoRoot, 'deploy', 'kubernetes.yaml'), 'utf8');
  const docs = parseAllDocuments(text).map((d) => {
    assert.deepEqual(d.errors, []);
    return d.toJS() as Obj;
  });
  const byKind = (kind: string) => docs.filter((d) => d.kind === kind);
  const named = (kind: string, name: string) => byKind(kind).find((d) => d.metadata.name === name);
  const workloads = [...byKind('Deployment'), ...byKind('StatefulSet')];
  const services = byKind('Service');

  // Redis runs here, on a volume, behind the Service REDIS_URL names
  const redis = byKind('StatefulSet').find((s) => /^redis:/.test(s.spec.template.spec.containers[0].image));
  assert.ok(redis, 'a Redis StatefulSet');
  assert.ok(redis.spec.volumeClaimTemplates?.length, 'Redis keeps its data on a volume');
  const config = named('ConfigMap', 'cmrender-config')!;
  const redisHost = /^redis:\/\/([^:/]+):(\d+)/.exec(config.data.REDIS_URL)!;
  const redisService = named('Service', redisHost[1]!);
  assert.ok(redisService, `REDIS_URL names the Service ${redisHost[1]}, which is defined`);
  assert.equal(redisService.spec.ports[0].port, Number(redisHost[2]));

  // no Secret in the manifest (an apply would reset real keys): the one it mounts is created outside, as documented
  assert.equal(byKind('Secret').length, 0);
  for (const w of workloads) {
    const spec = w.spec.template.spec as Obj;
    const labels = w.spec.template.metadata.labels as Obj;
    assert.deepEqual(w.spec.selector.matchLabels, labels, `${w.metadata.name}: selector`);
    assert.ok(Number.isInteger(spec.securityContext?.fsGroup), `${w.metadata.name}: fsGroup`);
    for (const v of (spec.volumes ?? []) as Obj[]) {
      if (v.persistentVolumeClaim)
        assert.ok(named('PersistentVolumeClaim', v.persistentVolumeClaim.claimName), `${v.name}: claim defined`);
      if (v.secret)
        assert.match(
          text,
          new RegExp(`kubectl create secret generic ${v.secret.secretName} `),
          `the Secret ${v.secret.secretName} is created outside: the comments say how`,
        );
    }
    for (const c of spec.containers as Obj[]) {
      const where = `${w.metadata.name}/${c.name}`;
      assert.ok(pinned(c.image), `${where}: image ${c.image} is not pinned`);
      assert.match(String(c.imagePullPolicy), /^(IfNotPresent|Always)$/, `${where}: imagePullPolicy`);
      const ports = new Map(((c.ports ?? []) as Obj[]).map((p) => [p.name, p.containerPort as number]));
      const rp = c.readinessProbe as Obj | undefined;
      assert.ok(rp, `${where}: a readiness probe`);
      assert.ok(rp.timeoutSeconds >= 2, `${where}: readiness timeout ${rp.timeoutSeconds} s (/readyz waits up to 1 s)`);
      assert.ok(
        rp.failureThreshold >= 2,
        `${where}: readiness failureThreshold ${rp.failureThreshold}: one slow answer`,
      );
      if (!CMRENDER_IMAGE.test(c.image)) continue;
      assert.equal(CMRENDER_IMAGE.exec(c.image)![1], version, `${where}: cmrender's tag is the version`);
      assert.equal(spec.securityContext.fsGroup, 1000, `${where}: the image runs as uid/gid 1000`);
      const env = new Map<string, string>(Object.entries(config.data as Obj));
      for (const from of (c.envFrom ?? []) as Obj[])
        assert.ok(named('ConfigMap', from.configMapRef.name), `${where}: ConfigMap ${from.configMapRef.name}`);
      for (const e of (c.env ?? []) as Obj[]) env.set(e.name, e.value);
      for (const k of env.keys()) assert.ok(realSetting(k), `${where}: ${k} is not a setting of config.ts`);
      const isWorker = (c.args as string[]).includes('dist/app/worker.js');
      const listens = isWorker ? Number(env.get('METRICS_PORT')) : Number(env.get('PORT') ?? DEFAULT_PORT);
      for (const probe of [c.readinessProbe, c.livenessProbe] as Obj[]) {
        const get = probe.httpGet ?? probe.tcpSocket;
        const port = typeof get.port === 'string' ? ports.get(get.port) : get.port;
        assert.equal(port, listens, `${where}: a probe asks port ${get.port}`);
        if (probe.httpGet)
          assert.ok(await (isWorker ? workerServes : apiServes)(probe.httpGet.path), `${where}: ${probe.httpGet.path}`);
      }
      const scrape = w.spec.template.metadata.annotations ?? {};
      if (scrape['prometheus.io/scrape'] === 'true') {
        assert.equal(Number(scrape['prometheus.io/port']), listens, `${where}: Prometheus asks the port it serves`);
        assert.ok(await (isWorker ? workerServes : apiServes)(scrape['prometheus.io/path']), `${where}: metrics path`);
      }
    }
  }

  // every Service selects a workload and targets one of its ports; nothing public but the Ingress
  for (const s of services) {
    const w = workloads.find((w) =>
      Object.entries(s.spec.selector).every(([k, v]) => w.spec.template.metadata.labels[k] === v),
    );
    assert.ok(w, `Service ${s.metadata.name} selects no workload`);
    const portNames = (w.spec.template.spec.containers as Obj[]).flatMap((c) =>
      ((c.ports ?? []) as Obj[]).map((p) => p.name),
    );
    for (const p of s.spec.ports) assert.ok(portNames.includes(p.targetPort), `${s.metadata.name}: ${p.targetPort}`);
    assert.ok(!['LoadBalancer', 'NodePort'].includes(s.spec.type), `Service ${s.metadata.name} is internal`);
  }
  const ingress = byKind('Ingress');
  assert.equal(ingress.length, 1, 'one public door');
  const paths = (ingress[0]!.spec.rules as Obj[]).flatMap((r) => r.http.paths as Obj[]);
  for (const p of paths) {
    assert.ok(named('Service', p.backend.service.name), `the Ingress sends ${p.path} to a defined Service`);
    // a prefix is checked by a route under it
    const [probe, method] = p.pathType === 'Exact' ? [p.path, 'GET' as const] : (UNDER[p.path] ?? [p.path, 'GET']);
    assert.ok(await apiServes(probe, method), `the Ingress publishes ${p.path}, which is served (${probe})`);
    for (const hidden of ['/metrics', '/test', '/readyz']) {
      const covers = p.pathType === 'Exact' ? p.path === hidden : hidden.startsWith(p.path);
      assert.ok(!covers, `the Ingress path ${p.path} publishes ${hidden}`);
    }
  }
  assert.ok(
    paths.some((p) => p.path === '/v1/'),
    'the API is published',
  );
});
