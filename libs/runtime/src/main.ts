import { createLogger, type Logger } from '@gateway/logger';

export interface RunningProcess {
  stop(): Promise<void>;
}

/**
 * Process entry point: read config once, start, and on SIGINT/SIGTERM stop gracefully (drain servers,
 * settle in-flight messages, close bus and store). A second signal, or a stop that hangs, exits hard.
 */
export function runMain<C extends { logLevel?: string }>(
  name: string,
  readConfig: () => C,
  start: (config: C, logger: Logger) => Promise<RunningProcess>,
  opts: { stopTimeoutMs?: number } = {},
): void {
  let logger = createLogger({ name });
  let config: C;
  try {
    config = readConfig();
  } catch (e) {
    logger.fatal({ err: e }, 'invalid configuration');
    process.exit(78);
  }
  logger = createLogger({ name, level: config.logLevel });
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
          () => {
            logger.info('stopped');
            process.exit(0);
          },
          (e) => {
            logger.error({ err: e }, 'error while stopping');
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => shutdown('SIGINT'));
      process.on('SIGTERM', () => shutdown('SIGTERM'));
    },
    (e) => {
      logger.fatal({ err: e }, 'failed to start');
      process.exit(1);
    },
  );
}
