import { calls as c } from '@gateway/contracts';
import { defineService } from '@gateway/rpc';
import type { Calls } from './calls';

/** The CallsService of proto/calls, served by the messaging process (which owns the call records). */
export function defineCallsService(calls: Calls) {
  return defineService(c.CallsService, {
    callAction: (r) => calls.action(r),
    connect: (r) => calls.connect(r),
    getCallPermission: async (r) => ({ permission: await calls.permission(r) }),
    getCall: async (r) => ({ call: await calls.get(r) }),
    listCalls: (r) => calls.list(r),
    getCallingSettings: async (r) => ({ settings: await calls.settings(r) }),
    updateCallingSettings: async (r) => ({ settings: await calls.updateSettings(r) }),
  });
}
