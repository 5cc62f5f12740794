// What a job is made from: a scene's source, a mesh's SVG, a vectorize image. Each has its own size limit
// (characters, UTF-8 bytes, base64), so one too large is a 400 before anything is queued.
import { z } from 'zod';
import { LIMITS } from '../../../contract/limits.js';

const L = LIMITS;
const M = L.mesh;
const V = L.vectorize;

export const Source = z
  .string({ error: 'source is required and must be a non-empty string' })
  .min(1, { error: 'source is required and must be a non-empty string' })
  .max(L.sourceMaxChars, { error: `source is longer than ${L.sourceMaxChars} characters` })
  .meta({
    description: `The .cm scene source, at most ${L.sourceMaxChars} characters. Should start with \`runner "<semver>";\`.`,
  });

const SVG_TOO_LARGE = `source is larger than ${M.sourceMaxBytes} bytes (64 KiB of UTF-8)`;
/** The SVG document of a mesh: counted in UTF-8 bytes (request-error.ts maps the byte check to source_too_large). */
export const SvgSource = z
  .string({ error: 'source is required and must be a non-empty string' })
  .min(1, { error: 'source is required and must be a non-empty string' })
  .max(M.sourceMaxBytes, { error: SVG_TOO_LARGE })
  .refine((s) => Buffer.byteLength(s, 'utf8') <= M.sourceMaxBytes, { error: SVG_TOO_LARGE })
  .meta({
    description: `An SVG document, at most ${M.sourceMaxBytes} bytes (64 KiB) of UTF-8. A malformed or empty SVG ends the job in \`error\` with a code (\`bad_svg\`, \`empty_svg\`).`,
  });

const IMAGE_TOO_LARGE = `image is longer than ${V.imageMaxBase64Chars} characters of base64 (12 MiB)`;
export const InlineImage = z
  .string({ error: 'image must be a base64 string' })
  .min(1, { error: 'image must be a non-empty base64 string' })
  .max(V.imageMaxBase64Chars, { error: IMAGE_TOO_LARGE })
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, { error: 'image must be base64 (A-Z, a-z, 0-9, +, /, = padding)' })
  .optional()
  .meta({
    description: `A PNG or JPEG inline as base64, at most ${V.imageMaxBase64Chars} characters (12 MiB). Give either this or \`source\` + \`assets\`.`,
  });
