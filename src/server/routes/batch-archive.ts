// GET /v1/batches/{id}/archive's body: a ZIP written as it is sent (yazl), never held whole in memory: each ready
// row's output is opened only when the writer reaches it (addReadStreamLazy) and read from the output store, where
// a job's GET /v1/outputs reads it (the data directory or the bucket), as `<name>.<ext>`; then manifest.json, every
// row with its name, job_id, status, args, and url or code. Outputs are stored (no deflate): PNG, MP4 and GIF are
// compressed already, and a stored entry costs no CPU.
import type { FastifyReply } from 'fastify';
import { extname } from 'node:path';
import { ZipFile } from 'yazl';
import type { BatchView } from '../../contract/batch-view.js';
import type { BatchRecord } from '../jobs/batches/batch-store.js';
import type { JobRecord } from '../jobs/store/port.js';
import type { OutputStore } from '../storage/output-store.js';

export function sendArchive(
  reply: FastifyReply,
  outputs: OutputStore,
  rec: BatchRecord,
  view: BatchView,
  jobs: (JobRecord | undefined)[],
) {
  const zip = new ZipFile();
  const manifest = rec.rows.map((row, i) => {
    const v = view.rows[i]!;
    const output = jobs[i]?.status === 'ready' ? jobs[i]!.output : undefined;
    const file = output ? `${row.name}${extname(output.filename)}` : undefined;
    if (output && file)
      zip.addReadStreamLazy(file, { compress: false, mtime: new Date(output.written_at) }, (cb) => {
        outputs.read(output.filename).then(
          (s) => cb(null, s),
          (err: Error) => cb(err, undefined as never),
        );
      });
    return {
      name: row.name,
      job_id: row.job_id,
      status: v.status,
      ...(row.args ? { args: row.args } : {}),
      ...(file ? { file } : {}),
      ...(v.url ? { url: v.url } : {}),
      ...(v.status === 'error' ? { code: v.code ?? null } : {}),
    };
  });
  const body = JSON.stringify(
    { batch_id: rec.batch_id, kind: rec.kind, status: view.status, counts: view.counts, rows: manifest },
    null,
    2,
  );
  zip.addBuffer(Buffer.from(body), 'manifest.json', { mtime: new Date(rec.ended_at ?? rec.created_at) });
  zip.end();
  // a row's file that cannot be read midway cuts the stream: the client sees a short ZIP, not a wrong one
  zip.outputStream.on('error', (err) => reply.log.warn({ err, batch_id: rec.batch_id }, 'batch archive cut'));
  return reply
    .code(200)
    .header('content-type', 'application/zip')
    .header('content-disposition', `attachment; filename="batch-${rec.batch_id}.zip"`)
    .header('cache-control', 'no-store')
    .send(zip.outputStream);
}
