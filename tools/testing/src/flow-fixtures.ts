/** A flow JSON the provider (and its simulator) accepts as is: one terminal screen with a form. */
export const BOOKING_FLOW_JSON = {
  version: '7.0',
  screens: [
    {
      id: 'BOOKING',
      title: 'Book a table',
      terminal: true,
      layout: {
        type: 'SingleColumnLayout',
        children: [
          { type: 'TextHeading', text: 'When?' },
          {
            type: 'Form',
            name: 'form',
            children: [
              { type: 'DatePicker', name: 'date', label: 'Date' },
              { type: 'Footer', label: 'Book', 'on-click-action': { name: 'complete', payload: {} } },
            ],
          },
        ],
      },
    },
  ],
};
