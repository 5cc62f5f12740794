#!/usr/bin/env node
// cmrender CLI entry: registers tsx so the TypeScript sources run directly.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
