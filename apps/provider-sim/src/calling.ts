import { GraphError, invalidParameter } from './errors';
import { arr, obj, oneOf, str } from './validate/checks';

type Json = Record<string, unknown>;

const DAY_MS = 86_400_000;
/** A temporary call permission lasts 7 days (provider-2026.md §7.5). */
export const TEMPORARY_PERMISSION_MS = 7 * DAY_MS;

export interface CallPermission {
  status: 'temporary' | 'permanent';
  /** ms; absent for a permanent one. */
  expiresAt?: number;
}

const DAYS = ['MONDAY', 'TUESDAY', 'WEDNESDAY', 'THURSDAY', 'FRIDAY', 'SATURDAY', 'SUNDAY'] as const;
const HHMM = /^([01]\d|2[0-3])[0-5]\d$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

const time = (v: unknown, path: string): string => {
  const t = str(v, path)!;
  if (!HHMM.test(t)) throw invalidParameter(`${path} must be a time HHMM`);
  return t;
};

/** `call_hours` of a settings update (provider-2026.md §7.1): ≤2 ranges a day, ≤20 holidays, open before close. */
function validateCallHours(v: unknown): Json {
  const h = obj(v, 'calling.call_hours');
  const status = oneOf(h.status, 'calling.call_hours.status', ['ENABLED', 'DISABLED']);
  if (status === 'DISABLED' && h.weekly_operating_hours === undefined) return { status };
  str(h.timezone_id, 'calling.call_hours.timezone_id', { max: 64 });
  const perDay = new Map<string, number>();
  arr(h.weekly_operating_hours, 'calling.call_hours.weekly_operating_hours', { min: 1, max: 14 }).forEach((r, i) => {
    const path = `calling.call_hours.weekly_operating_hours[${i}]`;
    const range = obj(r, path);
    const day = oneOf(range.day_of_week, `${path}.day_of_week`, DAYS);
    const open = time(range.open_time, `${path}.open_time`);
    const close = time(range.close_time, `${path}.close_time`);
    if (open >= close) throw invalidParameter(`${path}.open_time must be before close_time`);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
    if (perDay.get(day)! > 2) throw invalidParameter(`calling.call_hours.weekly_operating_hours has more than 2 ranges on ${day}`);
  });
  if (h.holiday_schedule !== undefined) {
    arr(h.holiday_schedule, 'calling.call_hours.holiday_schedule', { max: 20 }).forEach((d, i) => {
      const path = `calling.call_hours.holiday_schedule[${i}]`;
      const day = obj(d, path);
      if (!DATE.test(str(day.date, `${path}.date`)!)) throw invalidParameter(`${path}.date must be a date YYYY-MM-DD`);
      time(day.start_time, `${path}.start_time`);
      time(day.end_time, `${path}.end_time`);
    });
  }
  return h;
}

/**
 * Calling as the provider keeps it per business number (provider-2026.md §7): the settings of `POST /{PNID}/settings`
 * and the users' call permissions, with the permission-request limits per pair (§7.5).
 *
 * Numbers the control API creates start with calling enabled (a simplification: at the provider a business enables
 * it first); disabling it makes every call action and `connect` a 138000, and the simulated customers cannot call.
 */
export class SimCalling {
  private readonly settingsByPhone = new Map<string, Json>();
  private readonly permissions = new Map<string, CallPermission>();
  /** `${phoneId}:${user}` → times of the permission requests sent (ms), and the last request's message id. */
  private readonly requests = new Map<string, { at: number[]; lastId: string }>();

  settings(phoneId: string): Json {
    let s = this.settingsByPhone.get(phoneId);
    if (!s) {
      s = {
        status: 'ENABLED',
        call_icon_visibility: 'DEFAULT',
        call_hours: { status: 'DISABLED' },
        callback_permission_status: 'DISABLED',
        sip: { status: 'DISABLED' },
      };
      this.settingsByPhone.set(phoneId, s);
    }
    return s;
  }

  enabled(phoneId: string): boolean {
    return this.settings(phoneId).status === 'ENABLED';
  }

  /** 138000 when calling is not enabled on the number. */
  requireEnabled(phoneId: string): void {
    if (!this.enabled(phoneId)) throw new GraphError(401, 138000, '(#138000) Calling not enabled', { details: 'Calling is not enabled for this phone number' });
  }

  /** Applies the `calling` object of a settings update (validated first: nothing changes on a refusal). */
  update(phoneId: string, body: Json, appSubscribed: boolean): void {
    const c = obj(body.calling, 'calling');
    const next: Json = { ...this.settings(phoneId) };
    if (c.status !== undefined) next.status = oneOf(c.status, 'calling.status', ['ENABLED', 'DISABLED']);
    if (c.call_icon_visibility !== undefined)
      next.call_icon_visibility = oneOf(c.call_icon_visibility, 'calling.call_icon_visibility', ['DEFAULT', 'DISABLE_ALL']);
    if (c.callback_permission_status !== undefined)
      next.callback_permission_status = oneOf(c.callback_permission_status, 'calling.callback_permission_status', ['ENABLED', 'DISABLED']);
    if (c.call_hours !== undefined) next.call_hours = validateCallHours(c.call_hours);
    if (c.call_icons !== undefined) next.call_icons = obj(c.call_icons, 'calling.call_icons');
    if (c.audio !== undefined) next.audio = obj(c.audio, 'calling.audio');
    if (c.sip !== undefined) next.sip = { status: oneOf(obj(c.sip, 'calling.sip').status, 'calling.sip.status', ['ENABLED', 'DISABLED']) };
    if (c.status === 'ENABLED' && !appSubscribed)
      throw new GraphError(400, 138018, '(#138018) Calling cannot be enabled', {
        details: 'No app is subscribed to the calls webhook field of this business account',
      });
    this.settingsByPhone.set(phoneId, next);
  }

  permission(phoneId: string, user: string, now: number): CallPermission | undefined {
    const key = `${phoneId}:${user}`;
    const p = this.permissions.get(key);
    if (p?.expiresAt !== undefined && p.expiresAt <= now) {
      this.permissions.delete(key);
      return undefined;
    }
    return p;
  }

  /** 138006 without a live permission (business-initiated calls). */
  requirePermission(phoneId: string, user: string, now: number): void {
    if (!this.permission(phoneId, user, now))
      throw new GraphError(401, 138006, '(#138006) No approved call permission', { details: 'The user has not granted the business permission to call them' });
  }

  private requestTimes(phoneId: string, user: string, now: number): number[] {
    return (this.requests.get(`${phoneId}:${user}`)?.at ?? []).filter((t) => now - t < 7 * DAY_MS);
  }

  /** A permission request about to be sent: 138017 with a permanent permission, 138009 past 1 a day or 2 a week. */
  checkRequest(phoneId: string, user: string, now: number): void {
    if (this.permission(phoneId, user, now)?.status === 'permanent')
      throw new GraphError(400, 138017, '(#138017) Permanent call permission already granted', { details: 'The user granted a permanent call permission' });
    const times = this.requestTimes(phoneId, user, now);
    if (times.length >= 2 || times.some((t) => now - t < DAY_MS))
      throw new GraphError(400, 138009, '(#138009) Call permission request limit reached', {
        details: 'At most 1 call permission request a day and 2 a week per user',
      });
  }

  recordRequest(phoneId: string, user: string, messageId: string, now: number): void {
    this.requests.set(`${phoneId}:${user}`, { at: [...this.requestTimes(phoneId, user, now), now], lastId: messageId });
  }

  /** The last permission request sent to the user, if any. */
  lastRequest(phoneId: string, user: string): string | undefined {
    return this.requests.get(`${phoneId}:${user}`)?.lastId;
  }

  /** The user's reply: `accept` grants (7 days, or for good), `reject` takes any permission back. */
  reply(phoneId: string, user: string, accept: boolean, permanent: boolean, now: number): CallPermission | undefined {
    const key = `${phoneId}:${user}`;
    if (!accept) {
      this.permissions.delete(key);
      return undefined;
    }
    const p: CallPermission = permanent ? { status: 'permanent' } : { status: 'temporary', expiresAt: now + TEMPORARY_PERMISSION_MS };
    this.permissions.set(key, p);
    // any connected call resets the request limits; a granted permission too, here
    this.requests.delete(key);
    return p;
  }

  /** `GET /{PNID}/call_permissions` (provider-2026.md §7.4). */
  permissionBody(phoneId: string, user: string, now: number): Json {
    const p = this.permission(phoneId, user, now);
    const times = this.requestTimes(phoneId, user, now);
    const today = times.filter((t) => now - t < DAY_MS).length;
    return {
      messaging_product: 'whatsapp',
      permission: { status: p?.status ?? 'no_permission', ...(p?.expiresAt ? { expiration_time: Math.floor(p.expiresAt / 1000) } : {}) },
      actions: [
        {
          action_name: 'send_call_permission_request',
          can_perform_action: p?.status !== 'permanent' && today < 1 && times.length < 2,
          limits: [
            { time_period: 'PT24H', max_allowed: 1, current_usage: today },
            { time_period: 'P7D', max_allowed: 2, current_usage: times.length },
          ],
        },
        { action_name: 'start_call', can_perform_action: !!p, limits: [{ time_period: 'PT24H', max_allowed: 100, current_usage: 0 }] },
      ],
    };
  }
}
