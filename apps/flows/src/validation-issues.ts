import type { ValidationIssue } from '@gateway/errors';
import type { FlowValidationError } from '@gateway/provider-client';

/**
 * A provider pointer path as path segments: `screens[0].layout.children[1].type` (pointers) or
 * `$root/screens/0/layout` (messages) → ["screens", "0", "layout", ...]. Indices become decimal strings.
 */
export function pointerSegments(path: string): string[] {
  return path
    .replace(/^\$root\/?/, '')
    .split(/[./]|\[(\d+)\]/)
    .filter((s): s is string => s !== undefined && s !== '');
}

function valueAt(root: unknown, path: string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/**
 * The provider's validation errors in the spec's `detail` form (decisions.md "Flow JSON validation"): one item
 * per error, `loc` = ["body", "flow_json", ...its first pointer's path], `input` = the value there (null when
 * missing or the whole document), `ctx` = the provider's error fields as it sent them.
 */
export function flowValidationIssues(errors: FlowValidationError[], flowJson: unknown): ValidationIssue[] {
  return errors.map((e) => {
    const path = pointerSegments(e.pointers?.[0]?.path ?? '');
    // an error of the whole document (e.g. its syntax) has no single offending value worth echoing
    const input = path.length ? valueAt(flowJson, path) : undefined;
    return {
      loc: ['body', 'flow_json', ...path],
      msg: e.message ?? e.error ?? 'Invalid flow JSON',
      type: 'flow_validation_error',
      input: input === undefined ? null : input,
      ctx: { ...e },
    };
  });
}
