// The one registry of error codes (src/contract/error-codes.ts) holds every code the code base can emit, and call
// sites name codes through it. The typed doors (badRequest, httpError, envelope, Refusal, ExportError,
// WebhookRefused) take only registered codes, which tsc checks; this file reads the sources for what types cannot
// see (a job's `code` is any string, since a compile failure's is its diagnostic code) and checks that docs/api.md's
// table and the OpenAPI document are the registry's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from '../../src/paths.js';
import {
  CODE,
  ERROR_CODES,
  JOB_FAILURE_CODES,
  errorCodeTable,
  isErrorCode,
  type ErrorCode,
} from '../../src/contract/error-codes.js';

const REGISTRY = 'src/contract/error-codes.ts';
const codes = Object.keys(ERROR_CODES) as ErrorCode[];

/** Every module of ours that can emit a code: the language keeps its own diagnostic codes and is left out. */
function sources(): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push({ file: relative(repoRoot, p), text: '' });
    }
  };
  walk(join(repoRoot, 'src'));
  return out
    .filter(({ file }) => !file.startsWith('src/lang/') && file !== REGISTRY)
    .map(({ file }) => ({ file, text: withoutComments(readFileSync(join(repoRoot, file), 'utf8')) }));
}

/** The text with its comments blanked (line numbers kept): a comment may name a code in quotes. */
function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/(^|\s)\/\/.*$/gm, '$1');
}
const files = sources();

/** The drawing page's own error codes (viewer/src/page-api.ts): a namespace between the page and the renderer. */
const PAGE_CODES = (() => {
  const text = readFileSync(join(repoRoot, 'viewer', 'src', 'page-api.ts'), 'utf8');
  const union = /export type DrawErrorCode =([^;]*);/.exec(text);
  assert.ok(union, 'viewer/src/page-api.ts declares DrawErrorCode');
  return new Set([...union[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!));
})();

/** Other vocabularies that may spell a word the registry also has, each with why it is not a code. */
const NOT_CODES: { context: RegExp; why: string }[] = [
  { context: /reason(\??:|\s*[!=]==)\s*$/, why: "a job service's cancel outcome, which the route answers as 404" },
  { context: /new Error\(\s*$/, why: 'the reason an AbortController is aborted with, never sent' },
  { context: /event:\s*$/, why: "a log line's event name" },
];

/** A quoted lowercase word (a code's shape) with the text before it on its line. */
function* wordLiterals(text: string): Generator<{ word: string; before: string; line: number }> {
  for (const m of text.matchAll(/(['"])([a-z][a-z0-9_]*)\1/g)) {
    const start = text.lastIndexOf('\n', m.index) + 1;
    yield { word: m[2]!, before: text.slice(start, m.index), line: text.slice(0, m.index).split('\n').length };
  }
}

test('CODE names each registered code by itself; the page and the registry share no code', () => {
  for (const c of codes) assert.equal(CODE[c], c);
  assert.deepEqual(Object.keys(CODE), codes);
  assert.deepEqual(
    [...PAGE_CODES].filter((c) => isErrorCode(c)),
    [],
  );
});

test('every entry has a sentence, and either an HTTP status or a use as a job failure code', () => {
  for (const c of codes) {
    const e = ERROR_CODES[c];
    assert.match(c, /^[a-z][a-z0-9_]*$/, c);
    assert.ok(e.message.length > 0, `${c} has no sentence`);
    assert.ok(e.status !== undefined || e.job, `${c} is neither an answer's nor a job's`);
  }
});

test('no code is written as a string literal outside the registry: call sites name it through CODE', () => {
  const found: string[] = [];
  for (const { file, text } of files) {
    for (const { word, before, line } of wordLiterals(text)) {
      if (!isErrorCode(word)) continue;
      if (NOT_CODES.some((n) => n.context.test(before))) continue;
      found.push(`${file}:${line} '${word}'`);
    }
  }
  assert.deepEqual(found, [], 'write CODE.<name> (src/contract/error-codes.ts) instead');
});

/** The arguments of each call of `callee` in a text, split at its top level (strings and templates skipped). */
function* callArgs(text: string, callee: RegExp): Generator<{ args: string[]; line: number }> {
  for (const m of text.matchAll(callee)) {
    const open = m.index + m[0].length;
    const args: string[] = [];
    let depth = 0;
    let arg = '';
    let quote: string | null = null;
    for (let i = open; i < text.length; i++) {
      const ch = text[i]!;
      if (quote) {
        arg += ch;
        if (ch === '\\') arg += text[++i] ?? '';
        else if (ch === quote) quote = null;
        continue;
      }
      if (ch === "'" || ch === '"' || ch === '`') quote = ch;
      else if ('([{'.includes(ch)) depth++;
      else if (')]}'.includes(ch)) {
        if (depth === 0) break;
        depth--;
      } else if (ch === ',' && depth === 0) {
        args.push(arg.trim());
        arg = '';
        continue;
      }
      arg += ch;
    }
    if (arg.trim()) args.push(arg.trim());
    yield { args, line: text.slice(0, m.index).split('\n').length };
  }
}

test('every code the code base emits is registered: no job failure or answer carries a code of its own', () => {
  const unregistered: string[] = [];
  const judge = (file: string, line: number, word: string) => {
    // zod's issue code and the drawing page's codes (read by the renderer, never sent) are not ours to register
    if (word === 'custom' || PAGE_CODES.has(word)) return;
    if (!isErrorCode(word)) unregistered.push(`${file}:${line} '${word}'`);
  };
  for (const { file, text } of files) {
    // an envelope or a record written in place, or a code compared
    for (const m of text.matchAll(/(?<!typeof )\bcode\s*(?::|[!=]==)\s*(['"])([a-z][a-z0-9_]*)\1/g))
      judge(file, text.slice(0, m.index).split('\n').length, m[2]!);
    // a job failure's code: JobFailure(message, code, diagnostics?)
    for (const { args, line } of callArgs(text, /\bnew (?:JobFailure|GlLost)\(/g)) {
      const code = /^(['"])([a-z][a-z0-9_]*)\1$/.exec(args[1] ?? '');
      if (code) judge(file, line, code[2]!);
    }
  }
  assert.deepEqual(unregistered, [], 'register these in src/contract/error-codes.ts');
});

test("an answer's status is its code's: HttpError is made only by http-error.ts's httpError()", () => {
  const elsewhere = files
    .filter(({ file, text }) => file !== 'src/server/http/http-error.ts' && /\bnew HttpError\(/.test(text))
    .map(({ file }) => file);
  assert.deepEqual(elsewhere, []);
});

test('every registered code is named by some call site (no entry outlives its last use)', () => {
  const all = files.map((f) => f.text).join('\n');
  const unused = codes.filter((c) => !new RegExp(`\\bCODE\\.${c}\\b`).test(all));
  assert.deepEqual(unused, []);
});

test("docs/api.md's error code table is errorCodeTable() (every registered code documented)", () => {
  const apiDoc = readFileSync(join(repoRoot, 'docs', 'api.md'), 'utf8');
  const m = /<!-- error-codes:start -->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(apiDoc);
  assert.ok(m, 'docs/api.md has the error-codes markers');
  assert.equal(m[1], errorCodeTable());
  for (const c of codes) assert.ok(m[1]!.includes(`| \`${c}\` |`), c);
});

type Media = { schema?: { $ref?: string; properties?: { code?: { enum?: string[] } } } };
type Operation = { operationId: string; responses: Record<string, { content?: Record<string, Media> }> };
const doc = JSON.parse(readFileSync(join(repoRoot, 'openapi', 'openapi.json'), 'utf8')) as {
  info: { description: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> };
};
const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));

/**
 * Answer codes the OpenAPI document does not describe: the standalone runner's own (it is not this service), and
 * `cmrender open`'s refusals of another Host, origin or token (its routes are hidden from the document).
 */
const RUNNER_ONLY: readonly ErrorCode[] = [CODE.invalid_kind, CODE.timeout, CODE.forbidden];

test('OpenAPI: each error answer lists its codes as an enum, each registered at that status', () => {
  const listed = new Set<string>();
  for (const op of operations) {
    for (const [status, answer] of Object.entries(op.responses)) {
      if (!/^[45]\d\d$/.test(status)) continue;
      const media = answer.content?.['application/json'];
      if (media?.schema?.$ref !== '#/components/schemas/ErrorEnvelope') continue;
      const values = media.schema.properties?.code?.enum;
      assert.ok(values?.length, `${op.operationId} ${status} lists no codes`);
      for (const c of values) {
        assert.ok(isErrorCode(c), `${op.operationId} ${status}: ${c} is not registered`);
        assert.equal(ERROR_CODES[c].status, Number(status), `${op.operationId} ${status}: ${c}`);
        listed.add(c);
      }
    }
  }
  // the framework's own answers, which any route may give, are named once in the document's description
  for (const c of codes) if (doc.info.description.includes(`\`${c}\``)) listed.add(c);
  const answerCodes = codes.filter((c) => ERROR_CODES[c].status !== undefined && !RUNNER_ONLY.includes(c));
  assert.deepEqual(
    answerCodes.filter((c) => !listed.has(c)),
    [],
    'codes an answer gives that no operation of the document lists',
  );
  const jobCode = doc.components.schemas.JobError?.properties?.code?.description ?? '';
  for (const c of JOB_FAILURE_CODES) assert.ok(jobCode.includes(`\`${c}\``), `JobError.code names ${c}`);
});

test('no job ends without a code: no JobFailure, job end or failure body is written with code null', () => {
  const nulls: string[] = [];
  for (const { file, text } of files) {
    for (const m of text.matchAll(/\bcode\s*:\s*null\b/g)) {
      // the export worker's answer for an error that is not an ExportError: the renderer gives it internal_error
      if (file === 'src/export/export-worker.ts') continue;
      nulls.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
    }
    for (const { args, line } of callArgs(text, /\bnew (?:JobFailure|GlLost)\(/g))
      if (args.length < 2 || args[1] === 'null' || args[1] === 'undefined') nulls.push(`${file}:${line} JobFailure`);
  }
  assert.deepEqual(nulls, [], 'name the registered code the failure is (src/contract/error-codes.ts)');
});

test('every code a job may end with is reached by some test (named in a test besides the registry checks)', () => {
  const tests: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.test.ts') && !p.endsWith(join('contract', 'error-codes.test.ts')))
        tests.push(readFileSync(p, 'utf8'));
    }
  };
  walk(join(repoRoot, 'test'));
  const all = tests.join('\n');
  const unreached = JOB_FAILURE_CODES.filter((c) => !new RegExp(`(['"\`])${c}\\1|\\bCODE\\.${c}\\b`).test(all));
  assert.deepEqual(unreached, [], 'job codes no test asserts');
});
