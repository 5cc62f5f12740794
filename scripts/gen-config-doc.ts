// Writes docs/configuration.md from the settings of src/config/settings.ts (every variable, its default as an
// operator writes it, and its meaning). test/config/configuration-doc.test.ts fails when the committed file is not
// what this writes.
//
//   npm run config-doc
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../src/paths.js';
import { cliConfigTable, configTable } from '../src/config/settings.js';
import { FALSE_WORDS, TRUE_WORDS } from '../src/config/setting.js';

export const CONFIGURATION_DOC = join(repoRoot, 'docs', 'configuration.md');

export function configurationDoc(): string {
  const words = (w: string[]) => w.map((x) => `\`${x}\``).join(', ');
  return `# Configuration

Environment variables (source of truth: the settings of [\`src/config/settings.ts\`](../src/config/settings.ts); this
page is written from them by \`npm run config-doc\`, and a test keeps it equal to them). An unset or empty variable
takes its default. A boolean accepts ${words(TRUE_WORDS)} or ${words(FALSE_WORDS)}, in any case; a bad value of any
variable stops the start with one line naming the variable, its value and what it accepts (exit code 2).

<!-- config-table:start -->
${configTable()}
<!-- config-table:end -->

The standalone runner (\`npm run runner\`) reads the same variables, with \`PORT\` 8080 by default.

## The command line

\`cmrender render\` draws with the same Chromium, GL and ffmpeg settings as the service; \`cmrender mcp\` talks to a
running service:

<!-- cli-config-table:start -->
${cliConfigTable()}
<!-- cli-config-table:end -->

Limits of the contract live in [\`src/contract/limits.ts\`](../src/contract/limits.ts).
`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const text = configurationDoc();
  writeFileSync(CONFIGURATION_DOC, text);
  console.log(`wrote ${CONFIGURATION_DOC} (${Buffer.byteLength(text)} bytes)`);
}
