// `npm run sdk:generate`: writes the SDK's generated types (libs/sdk/src/generated/openapi.ts) from the edge's OpenAPI document.
// `--check`: exits 1 when the committed file differs from a fresh one (the edge's tests run it).
import { runBundled } from './run-bundled.mjs';

await runBundled('apps/edge/src/openapi/generate-main.ts', process.argv.slice(2));
