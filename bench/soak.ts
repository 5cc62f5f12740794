// `npm run bench:soak`: does the real service leak? It starts the service (a child process, embedded defaults, one
// render slot), renders SOAK_FRAMES (300) frames and then SOAK_VIDEOS (30) videos, one after another, and prints,
// after a warm-up and then after each phase: the Node process's RSS, the whole process tree's RSS (Node, Chromium,
// ffmpeg), the Node process's open file descriptors, the number of processes in the tree, and the files left in
// DATA_DIR's scratch and in the system's temporary directory. Flat numbers mean no leak: memory that grows with
// the jobs done, a descriptor or a process per job, or temporary files that stay would show here. Numbers, not a
// test: the figures go in the notes.
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ServiceProcess } from '../test/helpers/service-process.js';

const FRAMES = Number(process.env.SOAK_FRAMES ?? 300);
const VIDEOS = Number(process.env.SOAK_VIDEOS ?? 30);

const SCENE = (i: number) => `runner "0.0.3";
use std.shapes.*;
use std.anim.*;
scene s(duration: Duration = 1s) -> Frame {
  let x = animate { 0s => -300px, 1s => 300px };
  compose [rect(width: 1920px, height: 1080px, fill: #10203${i % 10}), circle(radius: 120px, fill: #ff3399).translate(x: x)]
}
`;

function statusKb(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function countFiles(dir: string): number {
  let n = 0;
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const name of names) {
      const p = join(d, name);
      try {
        if (statSync(p).isDirectory()) walk(p);
        else n++;
      } catch {
        // gone meanwhile
      }
    }
  };
  walk(dir);
  return n;
}

/** Entries in the temporary directory that a process of the tree made (Chromium's and ours), by name. */
function tmpEntries(): Set<string> {
  try {
    return new Set(readdirSync(tmpdir()));
  } catch {
    return new Set();
  }
}

const dataDir = mkdtempSync(join(tmpdir(), 'cmr-soak-'));
const tmpBefore = tmpEntries();
const s = await ServiceProcess.start(dataDir);

function sample(phase: string, jobs: number) {
  const tree = s.descendants();
  const treeRss = tree.reduce((n, p) => n + statusKb(p.pid, 'VmRSS'), statusKb(s.pid, 'VmRSS'));
  const fds = readdirSync(`/proc/${s.pid}/fd`).length;
  const newTmp = [...tmpEntries()].filter((n) => !tmpBefore.has(n) && !dataDir.endsWith(n)).length;
  return {
    phase,
    jobs,
    node_rss_mb: Math.round(statusKb(s.pid, 'VmRSS') / 1024),
    tree_rss_mb: Math.round(treeRss / 1024),
    node_fds: fds,
    processes: tree.length + 1,
    scratch_files: countFiles(join(dataDir, 'scratch')),
    new_tmp_entries: newTmp,
  };
}

async function run(path: string, body: unknown): Promise<void> {
  const id = await s.enqueue(path, body);
  const end = await s.waitJob(id, 120_000);
  if (end.body?.status !== 'ready') throw new Error(`job ${id} ended ${end.text}`);
}

const rows = [];
try {
  // warm-up: the browser, the pages and the encoder path are up before the first sample
  for (let i = 0; i < 5; i++) await run('/v1/frame', { source: SCENE(i), params: { width: 640, at: 0.5 } });
  await run('/v1/render', { source: SCENE(0), params: { width: 640, fps: 30 } });
  rows.push(sample('warm', 6));
  for (let i = 0; i < FRAMES; i++) {
    await run('/v1/frame', { source: SCENE(i), params: { width: 640, at: (i % 10) / 10 } });
    if ((i + 1) % 100 === 0) rows.push(sample(`frames`, i + 1));
  }
  for (let i = 0; i < VIDEOS; i++) {
    await run('/v1/render', { source: SCENE(i), params: { width: 640, fps: 30 } });
    if ((i + 1) % 10 === 0) rows.push(sample(`videos`, i + 1));
  }
  // what stays once the service is idle again
  await new Promise((r) => setTimeout(r, 2_000));
  rows.push(sample('idle', FRAMES + VIDEOS));
} finally {
  await s.stop();
  await rm(dataDir, { recursive: true, force: true });
}
console.table(rows);
