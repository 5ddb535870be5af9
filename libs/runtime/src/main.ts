import { createLogger, type Logger } from '@gateway/logger';
import { stopTelemetry } from '@gateway/telemetry';
import { applyV8Settings, readV8Settings } from './v8-settings';

export interface RunningProcess {
  stop(): Promise<void>;
}

/**
 * Process entry point: apply the V8 settings NODE_OPTIONS cannot carry (v8-settings.ts), read config once, start,
 * and on SIGINT/SIGTERM stop gracefully (drain servers, settle in-flight messages, close bus and store, then export
 * the spans still buffered). A second signal, or a stop that hangs, exits hard.
 */
export function runMain<C extends { logLevel?: string }>(
  name: string,
  readConfig: () => C,
  start: (config: C, logger: Logger) => Promise<RunningProcess>,
  opts: { stopTimeoutMs?: number } = {},
): void {
  let logger = createLogger({ name });
  let config: C;
  let v8Flags: string[];
  try {
    v8Flags = applyV8Settings(readV8Settings());
    config = readConfig();
  } catch (e) {
    logger.fatal({ err: e }, 'invalid configuration');
    process.exit(78);
  }
  logger = createLogger({ name, level: config.logLevel });
  if (v8Flags.length) logger.info({ v8Flags }, 'V8 settings applied');
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled rejection'));
  start(config, logger).then(
    (running) => {
      let stopping = false;
      const shutdown = (signal: string) => {
        if (stopping) {
          logger.warn({ signal }, 'second signal: exiting now');
          process.exit(1);
        }
        stopping = true;
        logger.info({ signal }, 'shutting down');
        const timer = setTimeout(() => {
          logger.error('graceful shutdown timed out');
          process.exit(1);
        }, opts.stopTimeoutMs ?? 20_000);
        timer.unref();
        running.stop().then(
          async () => {
            logger.info('stopped');
            await stopTelemetry();
            process.exit(0);
          },
          async (e) => {
            logger.error({ err: e }, 'error while stopping');
            await stopTelemetry();
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
    },
    async (e) => {
      logger.fatal({ err: e }, 'failed to start');
      await stopTelemetry(2000);
      process.exit(1);
    },
  );
}
