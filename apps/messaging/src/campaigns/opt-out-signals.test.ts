import { optOutSignals } from './opt-out-signals';

const text = (from: string, body: string) => ({ from, id: 'wamid.1', timestamp: '1', type: 'text', text: { body } });
const messages = (...msgs: unknown[]) => ({ field: 'messages', value: { messaging_product: 'whatsapp', metadata: { phone_number_id: '1' }, messages: msgs } });

describe('opt-out signals of a webhook change', () => {
  it('takes a text that is exactly a stop keyword, whatever its case and surrounding spaces, and nothing that merely contains one', () => {
    const change = messages(text('16505551001', ' Stop '), text('16505551002', 'please stop'), text('16505551003', 'UNSUBSCRIBE'), {
      from: '16505551004',
      type: 'image',
      image: {},
    });
    expect(optOutSignals(change)).toEqual([
      { user: '16505551001', value: 'stop', source: 'stop_keyword', at: 1000 },
      { user: '16505551003', value: 'stop', source: 'stop_keyword', at: 1000 },
    ]);
  });

  it("uses the client's own keywords when it has some, the defaults when its list is empty", () => {
    const change = messages(text('16505551001', 'quit'), text('16505551002', 'STOP'));
    expect(optOutSignals(change, ['QUIT']).map((s) => s.user)).toEqual(['16505551001']);
    expect(optOutSignals(change, []).map((s) => s.user)).toEqual(['16505551002']);
  });

  it('takes user_preferences of the marketing category: stop and resume, by wa_id or else the BSUID', () => {
    const change = {
      field: 'user_preferences',
      value: {
        user_preferences: [
          { wa_id: '16505551001', category: 'marketing_messages', value: 'stop', timestamp: 1764000000 },
          { user_id: 'US.13491208655302741918', category: 'marketing_messages', value: 'resume', timestamp: 'soon' },
          { wa_id: '16505551003', category: 'other', value: 'stop' },
          { wa_id: '16505551004', category: 'marketing_messages', value: 'maybe' },
          'junk',
        ],
      },
    };
    expect(optOutSignals(change)).toEqual([
      { user: '16505551001', value: 'stop', source: 'user_preferences', at: 1764000000_000 },
      { user: 'US.13491208655302741918', value: 'resume', source: 'user_preferences' },
    ]);
  });
});
