// GET /v1/jobs/{id}/events: a job's life as Server-Sent Events, for clients that would rather listen than poll.
//
//   event: progress   data: the pending job view (queue_position, progress), sent at once and whenever either moves
//   event: end        data: the final job view (status ready or error), then the stream closes
//
// An ended job gets its `end` event at once. A comment line every 15 s keeps proxies from closing an idle stream.
// The reply is hijacked (Fastify does not send a streaming answer's hooks): the headers the hooks set are handed on
// (http/hijacked-headers.ts: x-request-id) and the CORS headers are written here.
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { JobIdParams } from '../http/schemas/jobs.js';
import type { JobReading, JobService } from '../jobs/job-service.js';
import { CORS_HEADERS } from '../http/cors.js';
import { hijackKeepingHeaders } from '../http/hijacked-headers.js';
import { mayReach } from '../http/tenancy.js';
import { notFoundKept } from '../http/http-error.js';
import { notFoundAnswer } from '../http/responses.js';
import { JobWatchers } from './job-watchers.js';

export interface JobEventRoutesOptions {
  jobs: JobService;
  /** how long jobs are kept (RETENTION_MS), which a 404 says, as GET /v1/jobs/{id}'s does */
  keptMs: number;
}

const HEARTBEAT_MS = 15_000;

const EXAMPLE =
  'event: progress\ndata: {"job_id":"0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90","kind":"video","status":"pending","created_at":1764000000000,"queue_position":1,"progress":0}\n\n' +
  'event: progress\ndata: {"job_id":"0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90","kind":"video","status":"pending","created_at":1764000000000,"queue_position":0,"progress":0.5}\n\n' +
  'event: end\ndata: {"job_id":"0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90","kind":"video","status":"ready","created_at":1764000000000,"completed_at":1764000004000,"url":"/v1/outputs/0b7c6a57-2f0e-4c44-9a8e-2d5b8f3c1e90.mp4","mime":"video/mp4","width":1920,"height":1080}\n\n';

export const jobEventRoutes: FastifyPluginAsyncZod<JobEventRoutesOptions> = async (app, { jobs, keptMs }) => {
  /** open streams, ended when the app closes (an open stream would hold the server's close) */
  const open = new Set<() => void>();
  const watchers = new JobWatchers(jobs);
  app.addHook('preClose', async () => {
    for (const stop of [...open]) stop();
  });

  app.get(
    '/v1/jobs/:id/events',
    {
      schema: {
        summary: 'Follow a job (Server-Sent Events)',
        tags: ['jobs'],
        operationId: 'jobEvents',
        description:
          'Added. `progress` events (data: the pending job view with `queue_position` and `progress`) at once and whenever they change, then one `end` event (data: the final job view, ready or error) and the stream closes. An ended job: the `end` event at once.',
        params: JobIdParams,
        response: {
          200: {
            description: 'An event stream.',
            content: { 'text/event-stream': { schema: z.string().meta({ examples: [EXAMPLE] }) } },
          },
          404: notFoundAnswer('Unknown job id'),
        },
      },
    },
    async (req, reply) => {
      const id = req.params.id;
      const first = await jobs.get(id);
      if (!first || !mayReach(first.owner, req)) return reply.code(404).send(notFoundKept(`job ${id}`, keptMs));
      // with the x-request-id the hooks set (and the CORS headers, written below too)
      hijackKeepingHeaders(reply);
      const res: ServerResponse = reply.raw;
      res.writeHead(200, {
        ...CORS_HEADERS,
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
        // nginx and the like would buffer the stream otherwise
        'x-accel-buffering': 'no',
      });
      const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

      let done = false;
      let last = '';
      const stop = () => {
        if (done) return;
        done = true;
        open.delete(stop);
        clearInterval(heartbeat);
        unfollow();
        res.end();
      };
      const onState = (read: JobReading | undefined) => {
        if (done) return;
        if (!read) return stop(); // expired meanwhile: nothing more to tell
        const { view } = read;
        if (view.status !== 'pending') {
          send('end', view);
          return stop();
        }
        // progress moves per frame; a client wants to see it move, not every frame
        const now = `${view.queue_position}:${Math.floor((view.progress ?? 0) * 100)}`;
        if (now === last) return;
        last = now;
        send('progress', view);
      };
      const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
      heartbeat.unref();
      open.add(stop);
      res.on('close', stop);
      // the state now, then every change, read once per job for every stream that follows it
      const unfollow = watchers.follow(id, onState);
    },
  );
};
