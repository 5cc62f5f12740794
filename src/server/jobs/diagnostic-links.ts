// The `docs` link a diagnostic carries to its code's explanation (GET /v1/diagnostics/{code}), added to every
// diagnostic the service answers (a job's compile failure, POST /v1/check) when the code has an entry.
import { diagnosticDoc, diagnosticDocsPath } from '../../lang/diagnostic-docs.js';

export function withDocsLink<D extends { code: string }>(d: D): D & { docs?: string } {
  return diagnosticDoc(d.code) ? { ...d, docs: diagnosticDocsPath(d.code) } : { ...d };
}
