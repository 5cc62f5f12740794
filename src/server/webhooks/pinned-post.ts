// A webhook delivery connects to the address the policy checked (address-policy.ts resolve()), not to whatever the
// host name resolves to a moment later: a name that answers a public address to the check and a private one to the
// connection (DNS rebinding) cannot steer a delivery inside the network. The URL's host still goes in the Host
// header and in TLS's server name, so virtual hosts and certificates work as with any client.
//
// Only the status matters to a delivery, so the connection is destroyed as soon as it is known and the promise settles
// when the socket has closed: a receiver that sends its status line and then drips its body cannot keep a connection
// open after the dispatcher has freed the attempt's WEBHOOK_CONCURRENCY slot. No agent: a delivery's socket is its own,
// never pooled (an idle kept-alive socket would be one more connection the cap does not see).
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

/** A lookup that answers every name with this one address (the checked one). */
function pinTo(address: string): LookupFunction {
  const family = isIP(address);
  return ((_host: string, options: { all?: boolean }, cb: (...args: unknown[]) => void) => {
    if (options?.all) cb(null, [{ address, family }]);
    else cb(null, address, family);
  }) as unknown as LookupFunction;
}

/**
 * POSTs body to url, connecting to `address` when given; resolves with the status (redirects are not followed) once
 * the connection is closed.
 */
export function postPinned(
  url: URL,
  address: string | undefined,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: address ? pinTo(address) : undefined,
        agent: false,
        signal,
      },
      (res) => {
        const answer = { status: res.statusCode ?? 0, headers: res.headers };
        // the body is never read: the socket goes now, and the slot is given back when it has gone
        req.once('close', () => resolve(answer));
        res.on('error', () => {}); // the cut body's 'aborted' is this function's own doing
        req.destroy();
      },
    );
    // after a status, resolve() has already been bound to close; a later error (the destroy's own) changes nothing
    req.on('error', reject);
    req.end(body);
  });
}
