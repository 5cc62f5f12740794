// GET /v1/diagnostics and GET /v1/diagnostics/{code}: the explanation of every diagnostic code (the language's
// registry, src/lang/diagnostic-docs.ts), so a client or agent that meets a code can learn what it means and see a
// wrong and a right source.
import { z } from 'zod';

export const DiagnosticExplanation = z
  .object({
    code: z.string().meta({ description: 'The code, as a diagnostic carries it (`NAM003`).' }),
    title: z.string(),
    severity: z.enum(['error', 'warning', 'note']),
    stage: z
      .enum(['parse', 'check', 'runner', 'evaluate', 'render', 'service'])
      .meta({ description: 'Where it is found: parsing, the checks, the runner pin, evaluation, or the service.' }),
    explanation: z.string().meta({ description: 'What it means and how to fix it.' }),
    wrong: z.string().optional().meta({ description: 'A source that produces the code.' }),
    right: z.string().optional().meta({ description: 'The same source, fixed.' }),
    assets: z
      .object({ wrong: z.string(), right: z.string() })
      .optional()
      .meta({ description: "For the service's image codes: which images the job uploads with each snippet." }),
    docs: z.string().meta({ description: "This explanation's own path." }),
  })
  .meta({ id: 'DiagnosticExplanation' });

export const DiagnosticList = z.object({ diagnostics: z.array(DiagnosticExplanation) }).meta({ id: 'DiagnosticList' });

export const DiagnosticCodeParams = z.object({
  code: z.string().meta({ description: 'A diagnostic code such as `NAM003`.' }),
});
