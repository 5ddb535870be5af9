import pino, { type Logger, type LoggerOptions } from 'pino';
import { currentTraceIds } from '@gateway/telemetry';
import { currentRequestId } from './context';
import { camelCase, SECRET_FIELDS } from './secret-fields';

export type { Logger };

/** Keys whose values never reach a log line, wherever they appear (two levels deep, plus headers). */
const SECRET_KEYS = [...SECRET_FIELDS, ...SECRET_FIELDS.map(camelCase).filter((k) => !(SECRET_FIELDS as readonly string[]).includes(k))];

export const redactPaths = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  'req.headers.authorization',
  'req.headers["x-hub-signature-256"]',
  'headers.authorization',
  'headers["x-signature-256"]',
];

export interface CreateLoggerOptions {
  name: string;
  level?: string;
  /** Where to write; tests pass a stream to capture lines. */
  destination?: pino.DestinationStream;
}

export function createLogger(opts: CreateLoggerOptions): Logger {
  const options: LoggerOptions = {
    name: opts.name,
    level: opts.level ?? 'info',
    base: { service: opts.name },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: redactPaths, censor: '[redacted]' },
    formatters: { level: (label) => ({ level: label }) },
    // request_id, trace_id and span_id are taken from the async context at the moment of logging
    mixin: () => {
      const id = currentRequestId();
      const ids = currentTraceIds();
      return id ? (ids ? { request_id: id, ...ids } : { request_id: id }) : (ids ?? {});
    },
    serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
  };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}
