import { setMaxListeners } from 'node:events';

/** Deadlines that start within one slot of this many ms share one signal and one timer. */
export const DEADLINE_SLOT_MS = 50;

interface Slot {
  readonly index: number;
  readonly controller: AbortController;
  /** When the slot's signal aborts (`performance.now()` time): the slot's end plus the deadline's length. */
  readonly abortAt: number;
  timer?: NodeJS.Timeout;
  /** Deadlines of the slot not cleared yet: the timer runs only while there are some. */
  open: number;
}

/** The current slot of each deadline length in use (a handful: each caller has one or two lengths). */
const current = new Map<number, Slot>();

/**
 * A hard deadline for one outgoing request: its signal aborts with a `TimeoutError` (as `AbortSignal.timeout`
 * does) between `ms` and `ms` + 50 ms after the call, and `clear()` says the request has settled.
 *
 * Why shared: an `AbortController` and a timer per request were about 4 % of the dispatcher's busy time at
 * thousands of POSTs a second (and `AbortSignal.timeout`, before, kept every timer until it fired: tens of
 * thousands pending). Requests that start within one 50 ms slot now share one signal and one timer, which fires
 * 50 ms after the slot's end plus `ms`: every request still open then is past its own deadline. A settled request
 * has dropped its listener (undici removes it), so the abort of a slot touches only those still open; once every
 * deadline of a slot is cleared its timer is dropped, so a process leaves no timer behind when idle.
 */
export function deadline(ms: number): { signal: AbortSignal; clear(): void } {
  const now = performance.now();
  const index = Math.floor(now / DEADLINE_SLOT_MS);
  let slot = current.get(ms);
  if (!slot || slot.index !== index || slot.controller.signal.aborted) {
    const controller = new AbortController();
    // many requests listen at once: not a leak
    setMaxListeners(0, controller.signal);
    slot = { index, controller, abortAt: (index + 1) * DEADLINE_SLOT_MS + ms, open: 0 };
    current.set(ms, slot);
  }
  const s = slot;
  if (s.open++ === 0) s.timer = setTimeout(() => fire(ms, s), Math.max(0, s.abortAt - now));
  let cleared = false;
  return {
    signal: s.controller.signal,
    clear: () => {
      if (cleared) return;
      cleared = true;
      if (--s.open > 0) return;
      clearTimeout(s.timer);
      s.timer = undefined;
    },
  };
}

function fire(ms: number, slot: Slot): void {
  slot.timer = undefined;
  if (current.get(ms) === slot) current.delete(ms);
  slot.controller.abort(new DOMException(`The operation was aborted due to timeout (${ms} ms)`, 'TimeoutError'));
}
