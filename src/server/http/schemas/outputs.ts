// Outputs are immutable files served with ranges and validators: the download's path and conditional headers, and
// how a file answer is documented (Fastify serializes no bytes).
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { OUTPUT_FILENAME_RE } from '../../../contract/limits.js';

/** The path of GET /v1/outputs/{filename}. A name outside the pattern names no output (404). */
export const OutputParams = z.object({
  filename: z.string().regex(OUTPUT_FILENAME_RE).meta({ description: "The last segment of a ready job's `url`." }),
});

/** The conditional and range headers GET /v1/outputs/{filename} honours; every other header passes through. */
export const OutputRequestHeaders = z
  .object({
    range: z.string().optional().meta({
      description:
        'One `bytes=` range: 206 with that range; 416 when it starts past the end; ignored when malformed or multiple.',
    }),
    'if-none-match': z
      .string()
      .optional()
      .meta({ description: 'The `etag` of a copy the client holds: 304 when it matches.' }),
    'if-range': z
      .string()
      .optional()
      .meta({ description: 'The `range` applies only while the `etag` is still this one.' }),
  })
  .loose();

/** A file answer (PNG, MP4): a buffer or a stream, sent as it is (Fastify serializes neither); documented as bytes. */
export const FileBytes = z.custom<Buffer | Readable>().meta({ type: 'string', contentEncoding: 'binary' });
