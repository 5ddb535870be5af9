import type * as grpc from '@grpc/grpc-js';
import type { DescService } from '@bufbuild/protobuf';
import { MethodOptions_IdempotencyLevel } from '@bufbuild/protobuf/wkt';

/**
 * Channel settings of every client: per-request balancing over all backends of the target, keepalive pings
 * that notice a vanished backend (a SIGKILLed pod, a lost node) without waiting for TCP, and reconnection
 * with backoff.
 *
 * Retries: a call the server may have acted on is retried only when its RPC is declared free of side effects
 * in the contract (`option idempotency_level = NO_SIDE_EFFECTS` or `IDEMPOTENT`), and health checks. Those
 * are retried on UNAVAILABLE (the backend went away mid-call or refused it), which round_robin sends to
 * another backend. Sends and other writes are never retried here: their own idempotency rules decide what a
 * caller may repeat. grpc-js still retries transparently a call that never left the client.
 */
const RETRY_POLICY = {
  maxAttempts: 3,
  initialBackoff: '0.05s',
  maxBackoff: '0.5s',
  backoffMultiplier: 2,
  retryableStatusCodes: ['UNAVAILABLE'],
};

const HEALTH_SERVICE = 'grpc.health.v1.Health';

/** The RPCs of a service that may be repeated: reads by their contract, and every health check. */
export function retryableMethods(desc: DescService): string[] {
  return desc.methods
    .filter(
      (m) =>
        m.methodKind === 'unary' &&
        (desc.typeName === HEALTH_SERVICE ||
          m.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS ||
          m.idempotency === MethodOptions_IdempotencyLevel.IDEMPOTENT),
    )
    .map((m) => m.name);
}

export function serviceConfig(desc: DescService): object {
  const safe = retryableMethods(desc);
  return {
    loadBalancingConfig: [{ round_robin: {} }],
    methodConfig: safe.length ? [{ name: safe.map((method) => ({ service: desc.typeName, method })), retryPolicy: RETRY_POLICY }] : [],
  };
}

export function channelOptions(desc: DescService): grpc.ChannelOptions {
  return {
    'grpc.service_config': JSON.stringify(serviceConfig(desc)),
    // the service config is ours: a DNS TXT record must not replace it
    'grpc.service_config_disable_resolution': 1,
    // ping every 20 s, also while idle, and give up on a backend that does not answer within 5 s
    'grpc.keepalive_time_ms': 20_000,
    'grpc.keepalive_timeout_ms': 5_000,
    'grpc.keepalive_permit_without_calls': 1,
    'grpc.initial_reconnect_backoff_ms': 200,
    'grpc.max_reconnect_backoff_ms': 2_000,
    // a backend that went away makes the resolver look again (new pod IPs) at most this often
    'grpc.dns_min_time_between_resolutions_ms': 2_000,
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
  };
}
