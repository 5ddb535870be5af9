/** A call record's statuses (provider-2026.md §7; the messaging service's calls/record.ts makes them, the edge documents them). */
export const CALL_STATUSES = ['ringing', 'pre_accepted', 'accepted', 'rejected', 'terminated', 'missed'] as const;
export type CallStatus = (typeof CALL_STATUSES)[number];
