// The first import of main.ts: tracing starts (when OTEL_EXPORTER_OTLP_ENDPOINT is set) before http, koa,
// @grpc/grpc-js, pg and undici are loaded, so their instrumentations hook them (see @gateway/telemetry).
import { startTelemetry } from '@gateway/telemetry';

startTelemetry('dispatcher');
