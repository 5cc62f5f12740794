// docs/configuration.md is what scripts/gen-config-doc.ts writes from the settings (as openapi/openapi.json is what
// `npm run openapi` writes): a setting added, removed or re-documented without `npm run config-doc` fails here.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFIGURATION_DOC, configurationDoc } from '../../scripts/gen-config-doc.js';

test('docs/configuration.md is current (npm run config-doc)', () => {
  assert.equal(readFileSync(CONFIGURATION_DOC, 'utf8'), configurationDoc());
});
