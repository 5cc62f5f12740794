// `cmrender mesh drawing.svg -o out.glb` and `cmrender vectorize sketch.png -o out.svg`: the export library
// (src/export, the same functions as POST /v1/mesh and /v1/vectorize) on local files. No browser is involved.
import { readFileSync } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { CODE } from '../contract/error-codes.js';
import { isExportError, svgToGlb, vectorizeImage, type MeshParams, type VectorizeParams } from '../export/index.js';
import { numberFlag, parseFlags, UsageError, type ParsedFlags } from './flags.js';
import type { CommandIo } from './render-command.js';
import { MESH_USAGE, VECTORIZE_USAGE } from './usage.js';

const MESH_FLAGS = {
  '-o': 'string',
  '--output': 'string',
  '--depth': 'number',
  '--size': 'number',
  '--round': 'number',
} as const;
const VECTORIZE_FLAGS = {
  '-o': 'string',
  '--output': 'string',
  '--stroke-width': 'number',
  '--threshold': 'number',
  '--simplify': 'number',
  '--bridge': 'number',
  '--stitch': 'number',
  '--max-dim': 'number',
} as const;

/** The one input, the output (with the extension the command writes) and the parsed flags. */
function inputOutput(cmd: string, argv: readonly string[], spec: Parameters<typeof parseFlags>[1], ext: string) {
  const f = parseFlags(argv, spec);
  if (f.positional.length === 0) throw new UsageError(`\`${cmd}\` requires an input file argument`);
  if (f.positional.length > 1) throw new UsageError(`unexpected extra argument: ${f.positional[1]}`);
  const out = f.values.get('-o') ?? f.values.get('--output');
  if (!out) throw new UsageError(`\`${cmd}\` requires an output file: -o OUT${ext}`);
  const got = extname(out).toLowerCase();
  if (got !== ext)
    throw new UsageError(
      `\`${cmd}\` writes ${ext} files: unknown output extension '${got || '(none)'}' in '${basename(out)}'`,
    );
  return { input: f.positional[0]!, out: resolve(out), flags: f };
}

function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function meshParams(f: ParsedFlags): MeshParams {
  return defined({ depth: numberFlag(f, '--depth'), size: numberFlag(f, '--size'), round: numberFlag(f, '--round') });
}

export function vectorizeParams(f: ParsedFlags): VectorizeParams {
  return defined({
    strokeWidth: numberFlag(f, '--stroke-width'),
    threshold: numberFlag(f, '--threshold'),
    simplify: numberFlag(f, '--simplify'),
    bridge: numberFlag(f, '--bridge'),
    stitch: numberFlag(f, '--stitch'),
    maxDim: numberFlag(f, '--max-dim'),
  });
}

async function writeAtomically(path: string, bytes: Buffer | string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(`${path}.tmp`, bytes);
  await rename(`${path}.tmp`, path);
}

async function exportCommand(
  cmd: 'mesh' | 'vectorize',
  argv: readonly string[],
  io: CommandIo,
  make: (input: Buffer, flags: ParsedFlags) => Buffer | string,
): Promise<number> {
  const usage = cmd === 'mesh' ? MESH_USAGE : VECTORIZE_USAGE;
  let a: ReturnType<typeof inputOutput>;
  try {
    a = inputOutput(cmd, argv, cmd === 'mesh' ? MESH_FLAGS : VECTORIZE_FLAGS, cmd === 'mesh' ? '.glb' : '.svg');
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    io.err(`error: ${e.message}\nusage: ${usage}`);
    return 2;
  }
  let input: Buffer;
  try {
    input = readFileSync(a.input);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    io.err(
      code === 'ENOENT'
        ? `error: file not found: ${a.input}`
        : `error: could not read ${a.input}: ${(e as Error).message}`,
    );
    return 66;
  }
  let bytes: Buffer | string;
  try {
    bytes = make(input, a.flags);
  } catch (e) {
    if (!isExportError(e)) throw e;
    // the export library's refusals carry a stable code, like the HTTP envelope's
    io.err(`${a.input}: ${e.code} ${e.message}`);
    return e.code === CODE.bad_params ? 2 : 1;
  }
  await writeAtomically(a.out, bytes);
  io.out(`wrote ${a.out} (${Buffer.byteLength(bytes)} bytes)`);
  return 0;
}

export function meshCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  return exportCommand('mesh', argv, io, (svg, f) => svgToGlb(svg.toString('utf8'), meshParams(f)));
}

export function vectorizeCommand(argv: readonly string[], io: CommandIo): Promise<number> {
  return exportCommand('vectorize', argv, io, (image, f) => vectorizeImage(image, vectorizeParams(f)));
}
