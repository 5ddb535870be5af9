import { AppError, toAppError } from './app-error';

describe('AppError', () => {
  it('keeps validation issues in details.detail', () => {
    const issue = { loc: ['body', 'to'], msg: 'required', type: 'missing', input: null, ctx: {} };
    const e = AppError.validation([issue]);
    expect(e.kind).toBe('validation');
    expect(e.issues).toEqual([issue]);
  });

  it('wraps foreign errors as internal and passes AppErrors through', () => {
    const original = AppError.notFound('client_not_found', 'Client not found');
    expect(toAppError(original)).toBe(original);
    const wrapped = toAppError(new Error('boom'));
    expect(wrapped.kind).toBe('internal');
    expect(wrapped.message).toBe('boom');
  });
});
