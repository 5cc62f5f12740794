// The signature of a webhook delivery, so the receiver knows the POST came from this service and is fresh:
//
//   X-CMRender-Timestamp: <Unix seconds>
//   X-CMRender-Signature: <hex HMAC-SHA256(secret, timestamp + "." + body)>
//
// body = the exact bytes of the request body (the job's JSON view). The receiver recomputes the HMAC over the raw
// body it got, compares in constant time, and refuses timestamps more than a few minutes old (replays). Without a
// secret the signature header is left out (the timestamp is still sent).
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-cmrender-signature';
export const TIMESTAMP_HEADER = 'x-cmrender-timestamp';

export function signWebhook(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
}

/** The receiver's side (used by the tests, and the reference for the README snippets). */
export function verifyWebhook(secret: string, timestamp: string, body: string, signature: string): boolean {
  const want = Buffer.from(signWebhook(secret, Number(timestamp), body), 'hex');
  const got = Buffer.from(signature, 'hex');
  return got.length === want.length && timingSafeEqual(got, want);
}
