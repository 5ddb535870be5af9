import { setFlagsFromString } from 'node:v8';
import { int, loadConfig, type Env } from '@gateway/config';

/**
 * V8 settings that NODE_OPTIONS refuses, so a process applies them itself, before it serves anything (runMain does).
 * V8 reads them at every garbage collection, so setting them after start is enough.
 *
 * V8_HEAP_GROWING_PERCENT: how far the old generation may grow past what a mark-compact left alive before the next
 * one (V8's `--heap-growing-percent`; the factor is 1 + percent / 100). 0 keeps V8's own, which is 1.3 for every
 * old-space cap under 256 MB: with the gateway's 160 MB caps a service whose requests outlive two scavenges ran a
 * mark-compact every second (README, "V8 settings per service"). Near the cap V8 goes back to its cautious factor
 * on its own, so the cap still holds.
 */
const V8_SETTINGS = {
  heapGrowingPercent: int('V8_HEAP_GROWING_PERCENT', 0, { min: 0, max: 400 }),
};

export interface V8Settings {
  heapGrowingPercent: number;
}

/** Reads the V8 settings; a bad value throws a ConfigError naming the variable. */
export function readV8Settings(env: Env = process.env): V8Settings {
  return loadConfig(V8_SETTINGS, env);
}

/** Applies the settings to this process's V8 and returns the flags set (for the start log). */
export function applyV8Settings(settings: V8Settings): string[] {
  const flags = settings.heapGrowingPercent > 0 ? [`--heap-growing-percent=${settings.heapGrowingPercent}`] : [];
  for (const flag of flags) setFlagsFromString(flag);
  return flags;
}
