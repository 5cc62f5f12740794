// The signature of a webhook delivery, so the receiver knows the POST came from this service and is fresh.
//
// Standard Webhooks (https://www.standardwebhooks.com), verifiable with its libraries for many languages:
//
//   webhook-id:        msg_<job_id>   (one event per job: its end; the same id on every retry, to dedupe on)
//   webhook-timestamp: <Unix seconds of this attempt>
//   webhook-signature: v1,<base64 HMAC-SHA256(key, id + "." + timestamp + "." + body)>
//
// The key: a `whsec_<base64>` secret is the bytes after the prefix, base64-decoded (as the libraries read it); any
// other secret is its own UTF-8 bytes (the libraries' "raw" format). body = the exact bytes of the request body.
//
// Deprecated, kept for one release so existing receivers keep working:
//
//   X-CMRender-Timestamp: <Unix seconds>
//   X-CMRender-Signature: <hex HMAC-SHA256(secret as UTF-8, timestamp + "." + body)>
//
// Without a secret the signature headers are left out (id and timestamps are still sent).
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-cmrender-signature';
export const TIMESTAMP_HEADER = 'x-cmrender-timestamp';
export const STD_ID_HEADER = 'webhook-id';
export const STD_TIMESTAMP_HEADER = 'webhook-timestamp';
export const STD_SIGNATURE_HEADER = 'webhook-signature';
const WHSEC = 'whsec_';

/** The deprecated X-CMRender-Signature: hex HMAC of `timestamp.body` with the secret's UTF-8 bytes. */
export function signWebhook(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The HMAC key a secret stands for under Standard Webhooks. */
export function standardKey(secret: string): Buffer {
  return secret.startsWith(WHSEC) ? Buffer.from(secret.slice(WHSEC.length), 'base64') : Buffer.from(secret, 'utf8');
}

/** The webhook-id of a job's end: stable across retries and restarts, since a job ends once. */
export function webhookId(jobId: string): string {
  return `msg_${jobId}`;
}

/** The webhook-signature value: `v1,<base64 HMAC-SHA256 of id.timestamp.body>`. */
export function signStandard(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', standardKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** Every header a delivery carries besides its content type. */
export function deliveryHeaders(
  secret: string | undefined,
  jobId: string,
  timestamp: number,
  body: string,
): Record<string, string> {
  const id = webhookId(jobId);
  const headers: Record<string, string> = {
    [STD_ID_HEADER]: id,
    [STD_TIMESTAMP_HEADER]: String(timestamp),
    [TIMESTAMP_HEADER]: String(timestamp),
  };
  if (secret) {
    headers[STD_SIGNATURE_HEADER] = signStandard(secret, id, timestamp, body);
    headers[SIGNATURE_HEADER] = signWebhook(secret, timestamp, body);
  }
  return headers;
}
