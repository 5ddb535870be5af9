import { JsonSyntaxError, parseWithPositions, type JsonNode, type ObjectEntry, type Span } from './json-source';

/** One item of the provider's `validation_errors` (provider reference §5). */
export interface FlowValidationError {
  error: string;
  error_type: string;
  message: string;
  line_start: number;
  line_end: number;
  column_start: number;
  column_end: number;
  pointers: Array<{ line_start: number; line_end: number; column_start: number; column_end: number; path: string }>;
}

export const FLOW_JSON_VERSIONS = ['2.1', '3.0', '3.1', '4.0', '5.0', '5.1', '6.0', '6.1', '6.2', '6.3', '7.0', '7.1', '7.2'] as const;

const ROOT_PROPERTIES = new Set(['version', 'data_api_version', 'routing_model', 'data_channel_uri', 'screens']);
const SCREEN_PROPERTIES = new Set(['id', 'title', 'terminal', 'success', 'data', 'layout', 'refresh_on_back', 'sensitive']);
const COMPONENTS = new Set([
  'TextHeading',
  'TextSubheading',
  'TextBody',
  'TextCaption',
  'RichText',
  'TextInput',
  'TextArea',
  'CheckboxGroup',
  'RadioButtonsGroup',
  'ChipsSelector',
  'Dropdown',
  'DatePicker',
  'CalendarPicker',
  'OptIn',
  'EmbeddedLink',
  'Footer',
  'Image',
  'ImageCarousel',
  'PhotoPicker',
  'DocumentPicker',
  'NavigationList',
  'Form',
  'If',
  'Switch',
]);

type Path = Array<string | number>;

/** `screens[0].layout.children[0].type`, the form of the provider's pointer paths. */
function pointerPath(path: Path): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** `$root/screens/0/layout`, the form the provider's messages name a location in. */
function where(path: Path): string {
  return ['$root', ...path].join('/');
}

function problem(error: string, errorType: string, message: string, span: Span, path: Path, withPointer = true): FlowValidationError {
  const range = { line_start: span.start.line, line_end: span.end.line, column_start: span.start.column, column_end: span.end.column };
  return { error, error_type: errorType, message, ...range, pointers: withPointer ? [{ ...range, path: pointerPath(path) }] : [] };
}

const invalidValue = (prop: string, node: JsonNode, path: Path, hint = '') =>
  problem('INVALID_PROPERTY_VALUE', 'FLOW_JSON_ERROR', `Invalid value found for property '${prop}'.${hint}`, node.span, path);
// a missing property has no text of its own: the range is the object lacking it, the pointer names the property
const missing = (prop: string, parent: JsonNode, parentPath: Path) =>
  problem('MISSING_REQUIRED_PROPERTY', 'JSON_SCHEMA_ERROR', `The property "${prop}" is required at "${where(parentPath)}".`, parent.span, [
    ...parentPath,
    prop,
  ]);
const unknownProperty = (e: ObjectEntry, parentPath: Path) =>
  problem('INVALID_PROPERTY', 'JSON_SCHEMA_ERROR', `The property "${e.key}" cannot be specified at "${where(parentPath)}".`, e.keySpan, [...parentPath, e.key]);
const wrongType = (node: JsonNode, path: Path, expected: string) =>
  problem('INVALID_PROPERTY_TYPE', 'JSON_SCHEMA_ERROR', `Expected ${expected} at "${where(path)}", found ${node.kind}.`, node.span, path);

function field(obj: Extract<JsonNode, { kind: 'object' }>, key: string): JsonNode | undefined {
  return obj.entries.find((e) => e.key === key)?.value;
}

/**
 * Validates Flow JSON text the way the provider's assets endpoint reports it: every problem found, each with
 * its line/column range and a pointer path. Covers syntax, the root shape (`version`, `screens`), screens and
 * their layout, and component types (recursing into Form, If and Switch). Not the full provider schema.
 */
export function validateFlowJson(text: string): { errors: FlowValidationError[]; version: string | null } {
  let root: JsonNode;
  try {
    root = parseWithPositions(text);
  } catch (e) {
    if (!(e instanceof JsonSyntaxError)) throw e;
    const span = { start: e.pos, end: e.pos };
    return { errors: [problem('INVALID_JSON', 'JSON_PARSE_ERROR', `Invalid JSON: ${e.message}.`, span, [], false)], version: null };
  }
  if (root.kind !== 'object') return { errors: [wrongType(root, [], 'an object')], version: null };

  const errors: FlowValidationError[] = [];
  for (const e of root.entries) if (!ROOT_PROPERTIES.has(e.key)) errors.push(unknownProperty(e, []));

  let version: string | null = null;
  const v = field(root, 'version');
  if (!v) errors.push(missing('version', root, []));
  else if (v.kind !== 'string' || !(FLOW_JSON_VERSIONS as readonly string[]).includes(v.value)) {
    errors.push(invalidValue('version', v, ['version'], ` Supported versions: ${FLOW_JSON_VERSIONS.join(', ')}.`));
  } else version = v.value;

  const api = field(root, 'data_api_version');
  if (api && (api.kind !== 'string' || api.value !== '3.0'))
    errors.push(invalidValue('data_api_version', api, ['data_api_version'], ' The only supported value is "3.0".'));

  const screens = field(root, 'screens');
  if (!screens) errors.push(missing('screens', root, []));
  else if (screens.kind !== 'array') errors.push(wrongType(screens, ['screens'], 'an array'));
  else if (screens.items.length === 0)
    errors.push(problem('MIN_ITEMS', 'JSON_SCHEMA_ERROR', 'At least one screen is required at "$root/screens".', screens.span, ['screens']));
  else screens.items.forEach((s, i) => errors.push(...screenErrors(s, ['screens', i])));

  errors.sort((a, b) => a.line_start - b.line_start || a.column_start - b.column_start);
  return { errors, version: errors.length ? null : version };
}

function screenErrors(screen: JsonNode, path: Path): FlowValidationError[] {
  if (screen.kind !== 'object') return [wrongType(screen, path, 'an object')];
  const errors: FlowValidationError[] = [];
  for (const e of screen.entries) if (!SCREEN_PROPERTIES.has(e.key)) errors.push(unknownProperty(e, path));
  const id = field(screen, 'id');
  if (!id) errors.push(missing('id', screen, path));
  else if (id.kind !== 'string' || !/^[A-Za-z_]+$/.test(id.value))
    errors.push(invalidValue('id', id, [...path, 'id'], ' A screen id may only contain letters and underscores.'));
  const layout = field(screen, 'layout');
  if (!layout) errors.push(missing('layout', screen, path));
  else if (layout.kind !== 'object') errors.push(wrongType(layout, [...path, 'layout'], 'an object'));
  else {
    const lp = [...path, 'layout'];
    const type = field(layout, 'type');
    if (!type) errors.push(missing('type', layout, lp));
    else if (type.kind !== 'string' || type.value !== 'SingleColumnLayout') errors.push(invalidValue('type', type, [...lp, 'type']));
    const children = field(layout, 'children');
    if (!children) errors.push(missing('children', layout, lp));
    else errors.push(...componentListErrors(children, [...lp, 'children']));
  }
  return errors;
}

function componentListErrors(list: JsonNode, path: Path): FlowValidationError[] {
  if (list.kind !== 'array') return [wrongType(list, path, 'an array')];
  return list.items.flatMap((c, i) => componentErrors(c, [...path, i]));
}

function componentErrors(component: JsonNode, path: Path): FlowValidationError[] {
  if (component.kind !== 'object') return [wrongType(component, path, 'an object')];
  const type = field(component, 'type');
  if (!type) return [missing('type', component, path)];
  if (type.kind !== 'string' || !COMPONENTS.has(type.value)) return [invalidValue('type', type, [...path, 'type'])];
  // containers hold further components
  const nested: FlowValidationError[] = [];
  const list = (key: string) => {
    const node = field(component, key);
    if (node) nested.push(...componentListErrors(node, [...path, key]));
  };
  if (type.value === 'Form') list('children');
  if (type.value === 'If') {
    list('then');
    list('else');
  }
  if (type.value === 'Switch') {
    const cases = field(component, 'cases');
    if (cases?.kind === 'object') for (const e of cases.entries) nested.push(...componentListErrors(e.value, [...path, 'cases', e.key]));
  }
  return nested;
}
