/**
 * Tracing of one service process. On when an OTLP endpoint is configured (OTEL_EXPORTER_OTLP_ENDPOINT or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) and not switched off (OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none).
 * Off, the SDK is not even loaded: no instrumentation hooks, no context manager, no spans; the API calls of
 * `tracing.ts` are no-ops.
 *
 * `startTelemetry` must run before the process loads http, koa, @grpc/grpc-js, pg or undici, so each app's
 * `src/telemetry.ts` calls it and is the first import of its main.ts.
 */

export interface TelemetryEnv {
  OTEL_EXPORTER_OTLP_ENDPOINT?: string;
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?: string;
  OTEL_SDK_DISABLED?: string;
  OTEL_TRACES_EXPORTER?: string;
}

interface Sdk {
  start(): void;
  shutdown(): Promise<void>;
}

let sdk: Sdk | undefined;
let started: string | undefined;

export function tracingEnabled(env: TelemetryEnv = process.env): boolean {
  const endpoint = (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? '').trim() || (env.OTEL_EXPORTER_OTLP_ENDPOINT ?? '').trim();
  if (!endpoint) return false;
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return false;
  if (
    (env.OTEL_TRACES_EXPORTER ?? '')
      .split(',')
      .map((s) => s.trim())
      .includes('none')
  )
    return false;
  return true;
}

/** Starts the SDK once per process with `service.name` = `serviceName`; returns whether tracing is on. */
export function startTelemetry(serviceName: string, env: TelemetryEnv = process.env): boolean {
  if (started) {
    if (started !== serviceName) throw new Error(`telemetry already started as ${started}, not ${serviceName}`);
    return true;
  }
  if (!tracingEnabled(env)) return false;
  // loaded only when tracing is on: the SDK and its exporters weigh megabytes a process without tracing never needs
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createSdk } = require('./sdk') as typeof import('./sdk');
  sdk = createSdk(serviceName);
  sdk.start();
  started = serviceName;
  return true;
}

/** Exports the spans still buffered and stops the SDK (graceful shutdown); waits at most `timeoutMs`. */
export async function stopTelemetry(timeoutMs = 5000): Promise<void> {
  const current = sdk;
  sdk = undefined;
  started = undefined;
  if (!current) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([current.shutdown().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
  clearTimeout(timer);
}
