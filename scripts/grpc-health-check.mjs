#!/usr/bin/env node
// grpc.health.v1 check for container health checks (docker compose `healthcheck`, or by hand in a pod):
// exits 0 when the server answers SERVING, 1 otherwise (not serving, unreachable, timeout).
//
//   node scripts/grpc-health-check.mjs [host:port] [service]
//
// host:port defaults to 127.0.0.1:$GRPC_PORT; service defaults to '' (the whole server). Only @grpc/grpc-js is
// needed (it is a production dependency, so the runtime image has it): the two tiny messages are encoded by hand.
import grpc from '@grpc/grpc-js';
import { pathToFileURL } from 'node:url';

const STATUS = ['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'];

/** @param {number} n */
function varint(n) {
  /** @type {number[]} */
  const out = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}

/** HealthCheckRequest { string service = 1; } @param {{ service: string }} req */
function encodeRequest({ service }) {
  if (!service) return Buffer.alloc(0);
  const bytes = Buffer.from(service, 'utf8');
  return Buffer.from([0x0a, ...varint(bytes.length), ...bytes]);
}

/** HealthCheckResponse { ServingStatus status = 1; } (other fields skipped) @param {Buffer} buf */
function decodeResponse(buf) {
  let i = 0;
  let status = 0;
  const readVarint = () => {
    let n = 0;
    let shift = 0;
    for (;;) {
      const b = buf[i++];
      if (b === undefined) throw new Error('truncated health response');
      n += (b & 0x7f) * 2 ** shift;
      if (b < 0x80) return n;
      shift += 7;
    }
  };
  while (i < buf.length) {
    const tag = readVarint();
    const wire = tag & 7;
    if (tag >>> 3 === 1 && wire === 0) status = readVarint();
    else if (wire === 0) readVarint();
    else if (wire === 2) i += readVarint();
    else if (wire === 1) i += 8;
    else if (wire === 5) i += 4;
    else throw new Error(`unexpected wire type ${wire}`);
  }
  return { status };
}

/**
 * Resolves to the status name (`SERVING`, `NOT_SERVING`, ...); rejects when the server cannot be asked.
 * @param {string} address @param {{ service?: string, timeoutMs?: number }} [opts] @returns {Promise<string>}
 */
export function checkGrpcHealth(address, { service = '', timeoutMs = 3000 } = {}) {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(
      '/grpc.health.v1.Health/Check',
      encodeRequest,
      decodeResponse,
      { service },
      new grpc.Metadata(),
      { deadline: Date.now() + timeoutMs },
      (err, res) => {
        client.close();
        if (err || !res) reject(err);
        else resolve(STATUS[res.status] ?? `STATUS_${res.status}`);
      },
    );
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const address = process.argv[2] ?? `127.0.0.1:${process.env.GRPC_PORT ?? ''}`;
  const service = process.argv[3] ?? '';
  if (address.endsWith(':')) {
    console.error('usage: grpc-health-check.mjs [host:port] [service]  (or set GRPC_PORT)');
    process.exit(2);
  }
  checkGrpcHealth(address, { service }).then(
    (status) => {
      console.log(`${address}: ${status}`);
      process.exit(status === 'SERVING' ? 0 : 1);
    },
    (err) => {
      console.error(`${address}: ${err.details ?? err.message}`);
      process.exit(1);
    },
  );
}
