import { campaigns as cp } from '@gateway/contracts';
import { field, shape } from './presenter';
import { record } from './proto-record';

/* The campaign records (issue 26): a campaign with its counts, one recipient's outcome, an opt-out. */

export const Campaign = record(cp.CampaignSchema, {
  name: 'Campaign',
  describe: {
    status: '`draft`, `scheduled`, `running`, `paused`, `completed` or `cancelled`.',
    rate_per_second: "The campaign's own cap; null: the number's throughput.",
    counts: 'Recipients by status; `total` is their sum.',
  },
});

export const CampaignRecipient = record(cp.CampaignRecipientSchema, {
  name: 'CampaignRecipient',
  describe: {
    id: 'Its position in the campaign.',
    status:
      "`queued`, `sent`, `delivered`, `read`, `failed` (with `error_code`), `skipped` (`reason`: `opted_out` or `cancelled`), `deferred` (the portfolio's messaging limit: `reason` `messaging_limit`, or `provider_131049` with `error_code` `131049`; sent once the window frees) or `unknown` (the send may have reached the provider; never repeated).",
  },
});

export const OptOut = record(cp.OptOutSchema, {
  name: 'OptOut',
  describe: { source: '`api`, `stop_keyword`, `user_preferences` or `provider_131050`.' },
});

export const RecipientsAdded = shape<cp.AddRecipientsResponse>({
  added: field({ type: 'integer' }, (r) => r.added),
  duplicates: field({ type: 'integer', description: 'Recipients already in the campaign (or twice in the list): sent once.' }, (r) => r.duplicates),
  total: field({ type: 'integer' }, (r) => r.total),
});

export const OptOutsAdded = shape<cp.AddOptOutsResponse>({ added: field({ type: 'integer' }, (r) => r.added) });
export const OptOutsRemoved = shape<cp.RemoveOptOutsResponse>({ removed: field({ type: 'integer' }, (r) => r.removed) });
