import { loggedMessages, userIdUpdates } from './log';

const client = { id: 'c1', tenantId: 't1', externalId: null };
const at = new Date(Date.UTC(2026, 0, 1));
const metadata = { display_phone_number: '15550001111', phone_number_id: 'pn1' };

describe('messages of a webhook change kept in the log', () => {
  it('inbound messages of every type with the identity of contacts[]; parts of the wrong shape are left out', () => {
    const value = {
      metadata,
      contacts: [{ profile: { name: 'Ann', username: '@ann' }, wa_id: '16505550001', user_id: 'US.1', parent_user_id: 'US.ENT.9' }],
      messages: [
        { from: '16505550001', id: 'wamid.a', type: 'interactive', interactive: { type: 'button_reply', button_reply: { id: 'b1', title: 'Yes please' } } },
        { from: '16505550001', id: 'wamid.b', type: 'reaction', reaction: { message_id: 'wamid.out', emoji: '❤️' } },
        { from: '16505550001', id: 'wamid.c', type: 'text', text: { body: 'quoted' }, context: { id: 'wamid.out' } },
        { from: '16505550001', type: 'text', text: { body: 'no id' } },
        'not a message',
      ],
    };
    const logged = loggedMessages({ field: 'messages', value }, client, at);
    expect(logged.map((m) => [m.id, m.kind, m.text, m.contextId])).toEqual([
      ['wamid.a', 'interactive', 'Yes please', null],
      ['wamid.b', 'reaction', '❤️', 'wamid.out'],
      ['wamid.c', 'text', 'quoted', 'wamid.out'],
    ]);
    expect(logged[0]).toMatchObject({
      direction: 'in',
      from: '16505550001',
      to: '15550001111',
      identity: { waId: '16505550001', userId: 'US.1', parentUserId: 'US.ENT.9', username: '@ann', profileName: 'Ann' },
    });
  });

  it('echoes of the business app are outbound messages to the user', () => {
    const value = {
      metadata,
      contacts: [{ wa_id: '16505550002', user_id: 'US.2' }],
      message_echoes: [
        { from: '15550001111', to: '16505550002', to_user_id: 'US.2', id: 'wamid.e', timestamp: '1', type: 'text', text: { body: 'On my way' } },
      ],
    };
    expect(loggedMessages({ field: 'smb_message_echoes', value }, client, at)).toEqual([
      expect.objectContaining({
        id: 'wamid.e',
        direction: 'out',
        kind: 'text',
        text: 'On my way',
        to: '16505550002',
        identity: { waId: '16505550002', userId: 'US.2' },
      }),
    ]);
  });

  it('user_id_update gives the previous and the new BSUID', () => {
    const value = {
      metadata,
      user_id_update: [
        { wa_id: '16505550003', user_id: { previous: 'US.111', current: 'US.222' }, parent_user_id: { previous: 'US.ENT.1', current: 'US.ENT.2' } },
      ],
    };
    expect(userIdUpdates({ field: 'user_id_update', value })).toEqual([
      { previous: { waId: '16505550003', userId: 'US.111' }, newUserId: 'US.222', newParentUserId: 'US.ENT.2' },
    ]);
    expect(userIdUpdates({ field: 'messages', value })).toEqual([]);
  });
});
