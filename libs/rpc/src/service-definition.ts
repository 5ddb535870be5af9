import { create, fromBinary, isMessage, toBinary, type DescMethod, type DescService } from '@bufbuild/protobuf';
import type { MethodDefinition, ServiceDefinition } from '@grpc/grpc-js';

/**
 * protobuf-es v2 has no grpc-js output; a generated service descriptor already carries everything grpc-js
 * needs. Serializers wrap plain objects with create() first, because toBinary needs a real message.
 */
export function toGrpcServiceDefinition(service: DescService): ServiceDefinition {
  const def: Record<string, MethodDefinition<unknown, unknown>> = {};
  for (const m of service.methods) def[m.localName] = toMethodDefinition(service, m);
  return def as ServiceDefinition;
}

function toMethodDefinition(service: DescService, m: DescMethod): MethodDefinition<unknown, unknown> {
  const serialize = (schema: DescMethod['input']) => (value: unknown) =>
    Buffer.from(toBinary(schema, isMessage(value, schema) ? value : create(schema, value as never)));
  return {
    path: `/${service.typeName}/${m.name}`,
    originalName: m.name,
    requestStream: m.methodKind === 'client_streaming' || m.methodKind === 'bidi_streaming',
    responseStream: m.methodKind === 'server_streaming' || m.methodKind === 'bidi_streaming',
    requestSerialize: serialize(m.input),
    requestDeserialize: (b: Buffer) => fromBinary(m.input, b),
    responseSerialize: serialize(m.output),
    responseDeserialize: (b: Buffer) => fromBinary(m.output, b),
  };
}
