// The export worker thread: runs mesh and vectorize jobs off the service's event loop (a large trace takes
// seconds of CPU), one at a time, and answers each with its result or its ExportError code. A job that must stop
// (cancel, time limit) is stopped by terminating the thread (export-renderer.ts).
import { parentPort } from 'node:worker_threads';
import { runExportTask, type ExportTask } from './export-job.js';
import { isExportError, type ExportErrorCode } from './errors.js';
import { CODE } from '../contract/error-codes.js';

/** A failure carries its code from where it happened: the export library's, or internal_error for anything else. */
export type WorkerAnswer =
  | { ok: true; result: Awaited<ReturnType<typeof runExportTask>> }
  | { ok: false; code: ExportErrorCode | typeof CODE.internal_error; message: string };

parentPort!.on('message', (task: ExportTask) => {
  runExportTask(task).then(
    (result) => parentPort!.postMessage({ ok: true, result } satisfies WorkerAnswer),
    (e: unknown) => {
      const answer: WorkerAnswer = isExportError(e)
        ? { ok: false, code: e.code, message: e.message }
        : { ok: false, code: CODE.internal_error, message: e instanceof Error ? e.message : String(e) };
      parentPort!.postMessage(answer);
    },
  );
});
parentPort!.postMessage('ready');
