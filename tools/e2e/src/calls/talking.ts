/**
 * The whole seconds a call can last when the simulator's clock is moved on by `advanced` seconds while it is
 * up: the real time between starting it and its end adds to it (whole seconds on both ends, so a loaded
 * machine crossing a second boundary makes 95 s into 96). Called before the call starts; `seconds` after it ends.
 */
export function startedTalking() {
  const from = Date.now();
  return {
    seconds(advanced: number): number[] {
      const extra = Math.ceil((Date.now() - from) / 1000);
      return Array.from({ length: extra + 1 }, (_, i) => advanced + i);
    },
  };
}
