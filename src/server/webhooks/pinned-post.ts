// A webhook delivery connects to the address the policy checked (address-policy.ts resolve()), not to whatever the
// host name resolves to a moment later: a name that answers a public address to the check and a private one to the
// connection (DNS rebinding) cannot steer a delivery inside the network. The URL's host still goes in the Host
// header and in TLS's server name, so virtual hosts and certificates work as with any client.
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

/** POSTs body to url, connecting to `address` when given; resolves with the status (redirects are not followed). */
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
        signal,
      },
      (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, headers: res.headers });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
