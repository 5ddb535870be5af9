import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { AppError } from '@gateway/errors';
import { calls as c, messaging as m } from '@gateway/contracts';
import type { CallAction, CallTarget, ProviderClient } from '@gateway/provider-client';
import { decodePosition, encodePosition, pageSize, takePage } from '@gateway/store';
import type { IdempotentRunner } from '../idempotency';
import type { Messaging } from '../messaging';
import { callView, type CallEvent } from './record';
import type { CallRow, SqlCallRepository } from './store';

/** The provider calls the Calling API makes (provider-2026.md §7), behind a port like messaging's. */
export type CallingProvider = Pick<ProviderClient, 'calling'>;

const ACTIONS: ReadonlySet<string> = new Set<CallAction>(['pre_accept', 'accept', 'reject', 'terminate']);
/** What each action adds to the record once the provider accepted it. */
const ACTION_EVENT: Record<CallAction, CallEvent['kind']> = { pre_accept: 'pre_accepted', accept: 'accepted', reject: 'rejected', terminate: 'terminated' };
const CALL_ID = /^[\x21-\x7e]{1,256}$/;

const callNotFound = () => AppError.notFound('call_not_found', 'Call not found');

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

/** The gateway's calling settings from the provider's `calling` object (upper case in its pages, lower case in its OpenAPI file). */
export function settingsOf(calling: Json): MessageInitShape<typeof c.CallingSettingsSchema> {
  const on = (v: unknown) => typeof v === 'string' && v.toUpperCase() === 'ENABLED';
  const hours = isObj(calling.call_hours) ? calling.call_hours : undefined;
  const { status, ...rest } = hours ?? {};
  return {
    enabled: on(calling.status),
    callIconVisibility: typeof calling.call_icon_visibility === 'string' ? calling.call_icon_visibility.toUpperCase() : 'DEFAULT',
    callHoursJson: hours ? JSON.stringify({ enabled: on(status), ...rest }) : '',
    callbackPermission: on(calling.callback_permission_status),
  };
}

/** The provider's `calling` update from the fields a tenant gave (only those change). */
export function providerSettings(r: c.UpdateCallingSettingsRequest): Json {
  const status = (on: boolean) => (on ? 'ENABLED' : 'DISABLED');
  const out: Json = {};
  if (r.enabled !== undefined) out.status = status(r.enabled);
  if (r.callIconVisibility !== undefined) out.call_icon_visibility = r.callIconVisibility;
  if (r.callbackPermission !== undefined) out.callback_permission_status = status(r.callbackPermission);
  if (r.callHoursJson !== undefined) {
    const { enabled, ...rest } = JSON.parse(r.callHoursJson) as Json;
    out.call_hours = { status: status(enabled === true), ...rest };
  }
  return out;
}

/** The API's record of a call (proto `calls.v1.Call`). */
export function presentCall(row: CallRow): MessageInitShape<typeof c.CallSchema> {
  const v = callView(row.events);
  return {
    id: row.call_id,
    clientId: row.client_id,
    direction: row.direction || 'user_initiated',
    user: row.user_id,
    status: v.status,
    timeline: v.timeline,
    startedAt: v.startedAt,
    endedAt: v.endedAt,
    durationSeconds: v.durationSeconds,
    errorsJson: v.errors ? JSON.stringify(v.errors) : '',
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}

const callerContext = (caller: c.CallCaller | undefined) =>
  caller
    ? create(m.CallerContextSchema, {
        tenantId: caller.tenantId,
        clientId: caller.clientId,
        idempotencyKey: caller.idempotencyKey,
        requestHash: caller.requestHash,
      })
    : undefined;

/**
 * The Calling API of a tenant's client: the provider's call actions, business-initiated calls, permissions and
 * settings, each with the client's token (an inactive client is a 409, another tenant's a 404), and the call
 * records: an action the provider accepted is added to its call's record. A call id recorded for another client
 * (another tenant's call) is a 404 before any provider call; one not recorded yet (its webhook still on its way)
 * goes to the provider, which refuses a call that is not the number's.
 */
export class Calls {
  constructor(
    private readonly messaging: Pick<Messaging, 'resolve'>,
    private readonly provider: CallingProvider,
    private readonly runner: IdempotentRunner,
    private readonly repo: SqlCallRepository,
  ) {}

  /** Adds what the provider said (webhooks) to the records. */
  record(e: Parameters<SqlCallRepository['append']>[0]): Promise<void> {
    return this.repo.append(e);
  }

  private async checkHolder(tenantId: string, clientId: string, callId: string): Promise<void> {
    const holders = await this.repo.holders(callId);
    if (holders.length && !holders.some((h) => h.tenant_id === tenantId && h.client_id === clientId)) throw callNotFound();
  }

  async action(r: c.CallActionRequest): Promise<{ replayed: boolean }> {
    if (!ACTIONS.has(r.action)) throw new AppError('internal', 'call_action_unknown', `unknown call action ${r.action}`);
    const action = r.action as CallAction;
    const { replayed } = await this.runner.run(callerContext(r.caller), r.action === 'accept' ? 'accept_call' : `call:${r.action}`, async () => {
      const { client, credentials } = await this.messaging.resolve(callerContext(r.caller));
      await this.checkHolder(client.tenantId, client.id, r.callId);
      return async () => {
        await this.provider.calling.action(credentials.accessToken, credentials.phoneNumberId, r.callId, action, {
          sdp: r.sdp || undefined,
          bizOpaqueCallbackData: r.bizOpaqueCallbackData || undefined,
        });
        await this.repo.append({
          tenantId: client.tenantId,
          clientId: client.id,
          callId: r.callId,
          direction: '',
          user: '',
          event: { kind: ACTION_EVENT[action], at: new Date().toISOString(), source: 'action' },
        });
        return { response: {} };
      };
    });
    return { replayed };
  }

  async connect(r: c.ConnectRequest): Promise<{ callId: string; replayed: boolean }> {
    const target: CallTarget = r.to ? { to: r.to } : { recipient: r.recipient };
    const { response, replayed } = await this.runner.run<{ callId: string }>(callerContext(r.caller), 'call:connect', async () => {
      const { client, credentials } = await this.messaging.resolve(callerContext(r.caller));
      return async () => {
        const callId = await this.provider.calling.connect(
          credentials.accessToken,
          credentials.phoneNumberId,
          target,
          r.sdp,
          r.bizOpaqueCallbackData || undefined,
        );
        await this.repo.append({
          tenantId: client.tenantId,
          clientId: client.id,
          callId,
          direction: 'business_initiated',
          user: (r.to || r.recipient).replace(/^\+/, ''),
          event: { kind: 'ringing', at: new Date().toISOString(), source: 'action' },
        });
        return { response: { callId } };
      };
    });
    return { callId: response.callId, replayed };
  }

  async permission(r: c.GetCallPermissionRequest): Promise<MessageInitShape<typeof c.CallPermissionSchema>> {
    const { credentials } = await this.messaging.resolve(create(m.CallerContextSchema, { tenantId: r.tenantId, clientId: r.clientId }));
    const res = await this.provider.calling.permissions(credentials.accessToken, credentials.phoneNumberId, r.to ? { to: r.to } : { recipient: r.recipient });
    const expiry = Number(res.permission?.expiration_time);
    return {
      status: typeof res.permission?.status === 'string' ? res.permission.status : 'no_permission',
      expiresAt: expiry > 0 ? new Date(expiry * 1000).toISOString() : undefined,
      actionsJson: JSON.stringify(Array.isArray(res.actions) ? res.actions : []),
    };
  }

  async get(r: c.GetCallRequest): Promise<MessageInitShape<typeof c.CallSchema>> {
    if (!CALL_ID.test(r.callId)) throw callNotFound();
    const row = await this.repo.get(r.tenantId, r.clientId, r.callId);
    if (!row) throw callNotFound();
    return presentCall(row);
  }

  async list(r: c.ListCallsRequest): Promise<{ calls: Array<MessageInitShape<typeof c.CallSchema>>; nextCursor?: string }> {
    // another tenant's client is not found, not an empty list
    await this.messaging.resolve(create(m.CallerContextSchema, { tenantId: r.tenantId, clientId: r.clientId })).catch((e: unknown) => {
      if (e instanceof AppError && e.code === 'client_not_active') return;
      throw e;
    });
    const size = pageSize(r.limit);
    const rows = await this.repo.list(r.tenantId, r.clientId, size + 1, r.cursor ? decodePosition(r.cursor, CALL_ID) : undefined);
    const { page, nextCursor } = takePage(rows, size, (last) => encodePosition(last.position));
    return { calls: page.map(presentCall), nextCursor };
  }

  async settings(r: c.GetCallingSettingsRequest): Promise<MessageInitShape<typeof c.CallingSettingsSchema>> {
    const { credentials } = await this.messaging.resolve(create(m.CallerContextSchema, { tenantId: r.tenantId, clientId: r.clientId }));
    return settingsOf(await this.provider.calling.settings(credentials.accessToken, credentials.phoneNumberId));
  }

  async updateSettings(r: c.UpdateCallingSettingsRequest): Promise<MessageInitShape<typeof c.CallingSettingsSchema>> {
    const { credentials } = await this.messaging.resolve(callerContext(r.caller));
    const update = providerSettings(r);
    if (Object.keys(update).length) await this.provider.calling.updateSettings(credentials.accessToken, credentials.phoneNumberId, update);
    return settingsOf(await this.provider.calling.settings(credentials.accessToken, credentials.phoneNumberId));
  }
}
