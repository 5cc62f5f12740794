// POST /v1/batches (one scene rendered once per row, admitted whole or not at all), GET /v1/batches/{id} (the view),
// GET /v1/batches/{id}/events (Server-Sent Events: progress, a `row` as each row ends, `end`), GET
// /v1/batches/{id}/archive (a streamed ZIP of every ready row's output and manifest.json, 409 batch_pending before
// the end) and DELETE /v1/batches/{id} (cancel every row still pending). A batch another API key made is not found
// (http/tenancy.ts), as a job is. The batch's lifecycle is jobs/batches/batch-service.ts's; the archive's writing is
// routes/batch-archive.ts's.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { CODE } from '../../contract/error-codes.js';
import { BatchCreated, BatchIdParams, BatchRequest, batchParamsCheck } from '../http/schemas/batches.js';
import { BatchView } from '../../contract/batch-view.js';
import { EnqueueHeaders } from '../http/schemas/enqueue.js';
import type { BatchService } from '../jobs/batches/batch-service.js';
import type { BatchRecord } from '../jobs/batches/batch-store.js';
import type { SubmitDoor } from '../jobs/submit.js';
import { httpError, NOT_FOUND } from '../http/http-error.js';
import { requestHash } from '../jobs/idempotency.js';
import { mayReach, scopedIdempotencyKey } from '../http/tenancy.js';
import { CORS_HEADERS } from '../http/cors.js';
import { hijackKeepingHeaders } from '../http/hijacked-headers.js';
import {
  badRequestAnswer,
  errorAnswer,
  fileAnswer,
  json,
  notFoundAnswer,
  rateLimitedAnswer,
  refusalAnswer,
  unauthorizedAnswer,
} from '../http/responses.js';
import { sendArchive } from './batch-archive.js';

export interface BatchRoutesOptions extends SubmitDoor {
  batches: BatchService;
}

export const batchPath = (id: string) => `/v1/batches/${id}`;

const HEARTBEAT_MS = 15_000;
const EXAMPLE_BATCH = '5d0c3f2e-8a1b-4c7d-9e6f-0a1b2c3d4e5f';
const EXAMPLE_JOB = '0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90';
const EXAMPLE_VIEW: BatchView = {
  batch_id: EXAMPLE_BATCH,
  kind: 'frame',
  status: 'ready',
  created_at: 1764000000000,
  count: 1,
  counts: { pending: 0, ready: 1, error: 0 },
  progress: 1,
  rows: [{ job_id: EXAMPLE_JOB, name: 'red', status: 'ready', url: `/v1/outputs/${EXAMPLE_JOB}.png` }],
};

const EVENTS_EXAMPLE =
  `event: progress\ndata: ${JSON.stringify({ ...EXAMPLE_VIEW, status: 'pending', counts: { pending: 1, ready: 0, error: 0 }, progress: 0, rows: [{ job_id: EXAMPLE_JOB, name: 'red', status: 'pending' }] })}\n\n` +
  `event: row\ndata: ${JSON.stringify(EXAMPLE_VIEW.rows[0])}\n\n` +
  `event: end\ndata: ${JSON.stringify(EXAMPLE_VIEW)}\n\n`;

export const batchRoutes: FastifyPluginAsyncZod<BatchRoutesOptions> = async (app, { batches, ...door }) => {
  const sentAssets = new WeakMap<object, Record<string, string>>();
  app.addHook('preValidation', async (req) => {
    const b = req.body as { assets?: unknown } | null | undefined;
    if (req.url === '/v1/batches' && b && typeof b === 'object' && b.assets && typeof b.assets === 'object')
      sentAssets.set(req, b.assets as Record<string, string>);
  });
  const open = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const stop of [...open]) stop();
  });

  /** The batch the request may see, else undefined (unknown, expired, or another key's). */
  const reachable = async (id: string, req: Parameters<typeof mayReach>[1]): Promise<BatchRecord | undefined> => {
    const rec = await batches.get(id);
    return rec && mayReach(rec.owner, req) ? rec : undefined;
  };

  app.post(
    '/v1/batches',
    {
      schema: {
        summary: 'Render a scene once per row (a batch)',
        operationId: 'createBatch',
        tags: ['batches'],
        description:
          "Added. Each row becomes a job like any other (its own id, view, output and events) rendering the batch's `source` with the row's `args` and the batch's `params` with the row's over them. Admission is all or nothing: every row is checked and the whole batch priced against the queue's caps and the client's quota before any job exists; a bad row is `400` naming `rows[i]`. At most `BATCH_MAX_ROWS` rows (`400 too_many_rows`). `webhook` is called once, when every row has ended, with the batch's view, signed as a job's. An `Idempotency-Key` answers the same batch for the same body.",
        headers: EnqueueHeaders,
        body: BatchRequest,
        bodyExample: {
          kind: 'frame',
          source:
            'runner "0.0.3";\nuse std.shapes.*;\nscene card(fill: Color = #ff6a00) -> Frame { rect(width: 64px, height: 36px, fill: fill) }\n',
          params: { width: 64, height: 36 },
          rows: [
            { args: { fill: '#ff0000' }, name: 'red' },
            { args: { fill: '#00ff00' }, name: 'green' },
          ],
        },
        response: {
          202: {
            ...json(BatchCreated, 'Admitted: every row is a pending job.', {
              batch_id: EXAMPLE_BATCH,
              status: 'pending',
              kind: 'frame',
              count: 1,
              jobs: [{ job_id: EXAMPLE_JOB, name: 'red' }],
            }),
            headers: {
              location: { description: "The batch's URL, `/v1/batches/{batch_id}`.", type: 'string' },
            },
          },
          400: badRequestAnswer([
            CODE.invalid_rows,
            CODE.too_many_rows,
            CODE.invalid_args,
            CODE.invalid_params,
            CODE.invalid_kind,
            CODE.missing_source,
            CODE.source_too_large,
            CODE.no_alpha,
            CODE.invalid_assets,
            CODE.unknown_asset,
            CODE.bad_webhook,
            CODE.webhook_not_allowed,
            CODE.bad_idempotency_key,
            CODE.too_much_work,
            CODE.output_too_large,
            CODE.bad_json,
          ]),
          401: unauthorizedAnswer(),
          422: errorAnswer('`idempotency_mismatch`: the `Idempotency-Key` was used with another request.', [
            CODE.idempotency_mismatch,
          ]),
          429: rateLimitedAnswer([CODE.rate_limited, CODE.client_queue_full]),
          503: refusalAnswer([
            CODE.queue_full,
            CODE.storage_full,
            CODE.storage_unavailable,
            CODE.shutting_down,
            CODE.redis_unavailable,
          ]),
        },
      },
    },
    async (req, reply) => {
      const sent = req.headers['idempotency-key'];
      const key = sent ? scopedIdempotencyKey(sent, req) : undefined;
      // a refusal or a 4xx is a ServiceError thrown out of submit, answered by the app's one error handler
      const rec: BatchRecord = await batches.submit(
        {
          body: req.body,
          paramsCheck: batchParamsCheck(req.body.kind),
          sentAssets: sentAssets.get(req),
          cacheControl: String(req.headers['cache-control'] ?? ''),
          ...(req.apiKeyId ? { owner: req.apiKeyId } : {}),
          client: req.apiKeyId ? `key:${req.apiKeyId}` : `ip:${req.ip}`,
          ...(key ? { idempotency: { key, hash: requestHash('/v1/batches', req.body) } } : {}),
        },
        door,
      );
      return reply
        .code(202)
        .header('location', batchPath(rec.batch_id))
        .send({
          batch_id: rec.batch_id,
          status: 'pending' as const,
          kind: rec.kind as BatchView['kind'],
          count: rec.rows.length,
          jobs: rec.rows.map((r) => ({ job_id: r.job_id, name: r.name })),
        });
    },
  );

  app.get(
    '/v1/batches/:id',
    {
      schema: {
        summary: 'Poll a batch',
        operationId: 'getBatch',
        tags: ['batches'],
        description:
          "Added. `status` is `pending` while any row is pending, then `ready` (every row ready) or `error` (some row ended in error); `counts`, `progress` (frames done over every row's frames) and each row's `status`, `url` or `code`.",
        params: BatchIdParams,
        response: { 200: json(BatchView, 'The batch.', EXAMPLE_VIEW), 404: notFoundAnswer('Unknown batch id') },
      },
    },
    async (req, reply) => {
      const rec = await reachable(req.params.id, req);
      if (!rec) return reply.code(404).send(NOT_FOUND);
      reply.header('cache-control', 'no-store');
      return reply.code(200).send(await batches.view(rec));
    },
  );

  app.delete(
    '/v1/batches/:id',
    {
      schema: {
        summary: 'Cancel a batch',
        operationId: 'cancelBatch',
        tags: ['batches'],
        description:
          'Added. Every row still pending ends in error with `code` `cancelled`; rows already ended keep their outputs. Answers the batch view.',
        params: BatchIdParams,
        response: {
          200: json(BatchView, 'The batch after the cancel.', EXAMPLE_VIEW),
          404: notFoundAnswer('Unknown batch id'),
        },
      },
    },
    async (req, reply) => {
      const rec = await reachable(req.params.id, req);
      if (!rec) return reply.code(404).send(NOT_FOUND);
      return reply
        .code(200)
        .header('cache-control', 'no-store')
        .send(await batches.cancel(rec));
    },
  );

  app.get(
    '/v1/batches/:id/archive',
    {
      schema: {
        summary: "Download a batch's outputs (ZIP)",
        operationId: 'batchArchive',
        tags: ['batches'],
        description:
          "Added. A ZIP, streamed, of every ready row's output as `<name>.<ext>` and `manifest.json` (each row: name, job_id, status, args, url or code). Before every row has ended: `409 batch_pending`.",
        params: BatchIdParams,
        response: {
          200: fileAnswer('The archive.', ['application/zip']),
          404: notFoundAnswer('Unknown batch id'),
          409: errorAnswer('`batch_pending`: some rows are still pending.', [CODE.batch_pending]),
        },
      },
    },
    async (req, reply) => {
      const rec = await reachable(req.params.id, req);
      if (!rec) return reply.code(404).send(NOT_FOUND);
      const jobs = await batches.rows(rec);
      const view = await batches.view(rec, jobs);
      if (view.status === 'pending')
        throw httpError(
          CODE.batch_pending,
          `${view.counts.pending} of ${view.count} rows are still pending: the archive is made once every row has ended`,
        );
      return sendArchive(reply, batches.outputs, rec, view, jobs);
    },
  );

  app.get(
    '/v1/batches/:id/events',
    {
      schema: {
        summary: 'Follow a batch (Server-Sent Events)',
        operationId: 'batchEvents',
        tags: ['batches'],
        description:
          'Added. `progress` (data: the batch view) at once and whenever the progress moves, a `row` event (data: the row) as each row ends, then one `end` event (data: the final batch view) and the stream closes.',
        params: BatchIdParams,
        response: {
          200: {
            description: 'An event stream.',
            content: { 'text/event-stream': { schema: z.string().meta({ examples: [EVENTS_EXAMPLE] }) } },
          },
          404: notFoundAnswer('Unknown batch id'),
        },
      },
    },
    async (req, reply) => {
      const rec = await reachable(req.params.id, req);
      if (!rec) return reply.code(404).send(NOT_FOUND);
      hijackKeepingHeaders(reply);
      const res: ServerResponse = reply.raw;
      res.writeHead(200, {
        ...CORS_HEADERS,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      const rowIds = new Set(rec.rows.map((r) => r.job_id));
      const told = new Map<string, string>();
      let done = false;
      let last = '';
      let reading = false;
      let again = false;
      const stop = () => {
        if (done) return;
        done = true;
        open.delete(stop);
        clearInterval(heartbeat);
        batches.jobs.events.off('changed', onChanged);
        batches.events.off('ended', onEnded);
        res.end();
      };
      // one read at a time; a change during a read asks for one more after it
      const read = async () => {
        if (reading) {
          again = true;
          return;
        }
        reading = true;
        try {
          do {
            again = false;
            const view = await batches.view(rec);
            if (done) return;
            for (const row of view.rows) {
              if (row.status === 'pending' || told.has(row.job_id)) continue;
              told.set(row.job_id, row.status);
              send('row', row);
            }
            if (view.status !== 'pending') {
              send('end', view);
              return stop();
            }
            const now = `${Math.floor(view.progress * 100)}:${view.counts.ready}:${view.counts.error}`;
            if (now !== last) {
              last = now;
              send('progress', view);
            }
          } while (again && !done);
        } catch (err) {
          req.log.warn({ err, batch_id: rec.batch_id }, 'batch events read failed');
          stop();
        } finally {
          reading = false;
        }
      };
      const onChanged = (id: string) => {
        if (rowIds.has(id)) void read();
      };
      const onEnded = (ended: BatchRecord) => {
        if (ended.batch_id === rec.batch_id) void read();
      };
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      open.add(stop);
      res.on('close', stop);
      batches.jobs.events.on('changed', onChanged);
      batches.events.on('ended', onEnded);
      void read();
    },
  );
};
