import { flowValidationIssues, pointerSegments } from './validation-issues';

describe('provider validation errors in the detail form', () => {
  it.each([
    ['screens[0].layout.children[12].type', ['screens', '0', 'layout', 'children', '12', 'type']],
    ['$root/screens/0/layout', ['screens', '0', 'layout']],
    ['version', ['version']],
    ['', []],
  ])('reads the pointer path %j as path segments', (path, segments) => {
    expect(pointerSegments(path)).toEqual(segments);
  });

  it('gives one item per provider error, located by its first pointer, with the offending value and every provider field', () => {
    const flowJson = { screens: [{ layout: { children: [{ type: 'Carousel' }] } }] };
    const unknownType = {
      error: 'INVALID_PROPERTY_VALUE',
      error_type: 'FLOW_JSON_ERROR',
      message: "Invalid value found for property 'type'.",
      line_start: 7,
      line_end: 7,
      column_start: 21,
      column_end: 30,
      pointers: [{ line_start: 7, line_end: 7, column_start: 21, column_end: 30, path: 'screens[0].layout.children[0].type' }],
    };
    const missing = {
      error: 'MISSING_REQUIRED_PROPERTY',
      error_type: 'JSON_SCHEMA_ERROR',
      message: 'The property "version" is required at "$root".',
      pointers: [{ path: 'version' }],
    };
    const syntax = { error: 'INVALID_JSON', message: 'Invalid JSON', line_start: 1, pointers: [] };
    expect(flowValidationIssues([unknownType, missing, syntax], flowJson)).toEqual([
      {
        loc: ['body', 'flow_json', 'screens', '0', 'layout', 'children', '0', 'type'],
        msg: unknownType.message,
        type: 'flow_validation_error',
        input: 'Carousel',
        ctx: unknownType,
      },
      { loc: ['body', 'flow_json', 'version'], msg: missing.message, type: 'flow_validation_error', input: null, ctx: missing },
      { loc: ['body', 'flow_json'], msg: 'Invalid JSON', type: 'flow_validation_error', input: null, ctx: syntax },
    ]);
  });
});
