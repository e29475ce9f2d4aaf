// Writes docs/errors.md from the error catalog: `npm run docs:errors`.
import { writeFileSync } from 'node:fs';
import { renderErrorDocs } from '../src/core/index.ts';

const file = new URL('../docs/errors.md', import.meta.url);
writeFileSync(file, renderErrorDocs());
process.stdout.write(`wrote ${file.pathname}\n`);
