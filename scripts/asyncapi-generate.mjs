// `npm run asyncapi:generate`: renders the bus's AsyncAPI document (tools/asyncapi/src/document.ts) into asyncapi.yaml.
import { runBundled } from './run-bundled.mjs';

await runBundled('tools/asyncapi/src/generate.ts');
