import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { APP_NAMES } from '@gateway/config';
import { bundleApp } from '@gateway/test-stack';

/*
 * The instrumentations of koa, grpc-js and pg hook `require`: they see a module only if the SDK started before the
 * bundle required it. In every app's bundle (as built for deployment: node_modules external), the start with the
 * app's own service name must run before the first require of an instrumented package.
 */
describe.each(APP_NAMES.map((a) => [a]))('the %s bundle', (app) => {
  it('starts tracing, as itself, before it loads koa, @grpc/grpc-js, pg or undici', async () => {
    const bundle = await bundleApp(app);
    try {
      const code = readFileSync(bundle, 'utf8');
      const start = code.indexOf(`startTelemetry("${app}")`);
      const requires = [...code.matchAll(/require\("(koa|@koa\/router|@grpc\/grpc-js|pg|undici)"\)/g)];
      expect(start).toBeGreaterThan(-1);
      expect(requires.length).toBeGreaterThan(0);
      expect(Math.min(...requires.map((r) => r.index!))).toBeGreaterThan(start);
    } finally {
      rmSync(dirname(bundle), { recursive: true, force: true });
    }
  });
});
