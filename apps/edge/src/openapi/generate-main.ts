import { main } from './generate';

/** Entry of scripts/sdk-generate.mjs. */
main(process.argv[2] ?? process.cwd(), process.argv.includes('--check')).then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
