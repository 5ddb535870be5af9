import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ASYNCAPI_FILE, renderAsyncApiYaml } from './document';

/** `npm run asyncapi:generate`: writes the bus's AsyncAPI document to the repository root. */
const root = process.argv[2] ?? process.cwd();
const file = join(root, ASYNCAPI_FILE);
writeFileSync(file, renderAsyncApiYaml(root));
console.log(file);
