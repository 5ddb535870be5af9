import { validateFlowJson } from './validate-flow-json';

const validFlow = {
  version: '7.0',
  screens: [
    {
      id: 'WELCOME',
      title: 'Welcome',
      terminal: true,
      layout: {
        type: 'SingleColumnLayout',
        children: [
          { type: 'TextHeading', text: 'Hello' },
          {
            type: 'Form',
            name: 'form',
            children: [
              { type: 'TextInput', name: 'email', label: 'Email' },
              { type: 'Footer', label: 'Done', 'on-click-action': { name: 'complete', payload: {} } },
            ],
          },
        ],
      },
    },
  ],
};

const text = (v: unknown) => JSON.stringify(v, null, 2);

describe('Flow JSON validation as the provider reports it', () => {
  it('accepts a well-formed flow and reports its json version', () => {
    expect(validateFlowJson(text(validFlow))).toEqual({ errors: [], version: '7.0' });
  });

  it('reports a missing version and missing screens, each pointing at the property with the range of the object lacking it', () => {
    const { errors, version } = validateFlowJson('{\n  "routing_model": {}\n}');
    expect(version).toBeNull();
    expect(errors).toEqual([
      {
        error: 'MISSING_REQUIRED_PROPERTY',
        error_type: 'JSON_SCHEMA_ERROR',
        message: 'The property "version" is required at "$root".',
        line_start: 1,
        line_end: 3,
        column_start: 1,
        column_end: 1,
        pointers: [{ line_start: 1, line_end: 3, column_start: 1, column_end: 1, path: 'version' }],
      },
      expect.objectContaining({
        error: 'MISSING_REQUIRED_PROPERTY',
        message: 'The property "screens" is required at "$root".',
        pointers: [expect.objectContaining({ path: 'screens' })],
      }),
    ]);
  });

  it('reports an unknown component type inside a Form at the exact line and columns of its value', () => {
    const flow = structuredClone(validFlow);
    (flow.screens[0].layout.children[1].children as Array<{ type: string }>)[1].type = 'Fotter';
    const source = text(flow);
    const { errors } = validateFlowJson(source);
    const line = source.split('\n').findIndex((l) => l.includes('"Fotter"')) + 1;
    const column = source.split('\n')[line - 1].indexOf('"Fotter"') + 1;
    expect(errors).toEqual([
      {
        error: 'INVALID_PROPERTY_VALUE',
        error_type: 'FLOW_JSON_ERROR',
        message: "Invalid value found for property 'type'.",
        line_start: line,
        line_end: line,
        column_start: column,
        column_end: column + '"Fotter"'.length - 1,
        pointers: [{ line_start: line, line_end: line, column_start: column, column_end: column + 7, path: 'screens[0].layout.children[1].children[1].type' }],
      },
    ]);
  });

  it('reports a property the schema does not allow at the position of its key', () => {
    const source = text({ ...validFlow, colour: 'red' });
    const line = source.split('\n').findIndex((l) => l.startsWith('  "colour"')) + 1;
    const { errors } = validateFlowJson(source);
    expect(errors).toEqual([
      expect.objectContaining({
        error: 'INVALID_PROPERTY',
        message: 'The property "colour" cannot be specified at "$root".',
        line_start: line,
        column_start: 3,
        column_end: 10,
      }),
    ]);
    expect(errors[0].pointers[0].path).toBe('colour');
  });

  it('reports every problem at once, in source order', () => {
    const flow = { version: '1.0', screens: [{ id: 'bad-id', layout: { type: 'TwoColumns', children: [{ type: 'Nope' }] } }] };
    expect(validateFlowJson(text(flow)).errors.map((e) => e.pointers[0].path)).toEqual([
      'version',
      'screens[0].id',
      'screens[0].layout.type',
      'screens[0].layout.children[0].type',
    ]);
  });

  it('reports text that is not JSON with the position where parsing stopped', () => {
    const { errors } = validateFlowJson('{\n  "version": "7.0",\n  "screens": [\n}');
    expect(errors).toEqual([
      {
        error: 'INVALID_JSON',
        error_type: 'JSON_PARSE_ERROR',
        message: "Invalid JSON: Unexpected character '}' at line 4, column 1.",
        line_start: 4,
        line_end: 4,
        column_start: 1,
        column_end: 1,
        pointers: [],
      },
    ]);
  });
});
