import { csvLayout, csvRows } from './campaigns-csv';

async function rows(...chunks: string[]): Promise<string[][]> {
  const out: string[][] = [];
  for await (const r of csvRows(
    (async function* () {
      for (const c of chunks) yield Buffer.from(c);
    })(),
  ))
    out.push(r);
  return out;
}

describe('csvRows: a CSV read one row at a time', () => {
  it('reads quoted fields, doubled quotes, commas and line breaks inside quotes, CRLF, whatever the chunks', async () => {
    const text = 'to,name\r\n+16505550001,"Ann, ""A"""\r\n+16505550002,"two\nlines"\n\n+16505550003,plain';
    const whole = await rows(text);
    expect(whole).toEqual([
      ['to', 'name'],
      ['+16505550001', 'Ann, "A"'],
      ['+16505550002', 'two\nlines'],
      ['+16505550003', 'plain'],
    ]);
    // every split point, the ones inside a doubled quote included
    for (let i = 1; i < text.length; i++) expect(await rows(text.slice(0, i), text.slice(i))).toEqual(whole);
  });

  it('reads a header: positional columns in order, named ones by name; bad lines are 422s naming the line', () => {
    const positional = csvLayout(['2', 'to', '1']);
    expect(positional(['b', '+16505550001', 'a'], 2)).toEqual({ to: '+16505550001', positional: ['a', 'b'], named: {} });
    const named = csvLayout(['to', 'first_name']);
    expect(named(['+16505550001', 'Jo'], 2)).toEqual({ to: '+16505550001', positional: [], named: { first_name: 'Jo' } });
    expect(() => csvLayout(['phone', '1'])).toThrow(/no `to`/);
    expect(() => named(['+16505550001'], 7)).toThrow(
      expect.objectContaining({ details: { detail: [expect.objectContaining({ loc: ['body', 'line', '7'] })] } }),
    );
    expect(() => named(['12', 'Jo'], 3)).toThrow(/phone number/);
  });

  it('reads a recipient column: a BSUID as the recipient, a phone number as to; with both columns to wins', () => {
    const byId = csvLayout(['recipient', 'first_name']);
    expect(byId(['US.13491208655302741918', 'Jo'], 2)).toEqual({ to: '', recipient: 'US.13491208655302741918', positional: [], named: { first_name: 'Jo' } });
    expect(byId(['+16505550001', 'Jo'], 2)).toEqual({ to: '+16505550001', positional: [], named: { first_name: 'Jo' } });
    expect(() => byId(['nobody', 'Jo'], 4)).toThrow(/Line 4: recipient must be a phone number or a business-scoped user id/);
    const both = csvLayout(['to', 'recipient', '1']);
    expect(both(['', 'US.1', 'a'], 2)).toEqual({ to: '', recipient: 'US.1', positional: ['a'], named: {} });
    expect(both(['+16505550001', 'US.1', 'a'], 2)).toEqual({ to: '+16505550001', positional: ['a'], named: {} });
    expect(() => both(['', '', 'a'], 5)).toThrow(/Line 5: to must be a phone number \(or recipient a business-scoped user id\)/);
  });
});
