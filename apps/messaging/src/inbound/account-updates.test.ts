import { accountUpdate, templateUpdate } from './account-updates';

/* What the gateway reads of the provider's 2026 account and template webhooks (provider-2026.md §3.2, §5, §6.3, §8). */
describe('account and template updates from webhook changes', () => {
  it('account_update: MM_LITE_TERMS_SIGNED onboards; restriction, ban, offboarding and uninstalling deactivate; the rest informs', () => {
    expect(accountUpdate({ field: 'account_update', value: { event: 'MM_LITE_TERMS_SIGNED', waba_info: { waba_id: '1' } } })).toEqual({
      marketingMessagesOnboarded: true,
    });
    for (const event of ['ACCOUNT_RESTRICTION', 'DISABLED_UPDATE', 'ACCOUNT_OFFBOARDED', 'ACCOUNT_DELETED', 'PARTNER_REMOVED', 'PARTNER_APP_UNINSTALLED'])
      expect(accountUpdate({ field: 'account_update', value: { event } })).toEqual({ deactivateReason: event });
    expect(accountUpdate({ field: 'account_update', value: { event: 'DISABLED_UPDATE', ban_info: { waba_ban_state: 'REINSTATE' } } })).toBeUndefined();
    for (const event of ['PARTNER_APP_INSTALLED', 'ACCOUNT_VIOLATION', 'VOLUME_BASED_PRICING_TIER_UPDATE', 'ACCOUNT_RECONNECTED', 42, null])
      expect(accountUpdate({ field: 'account_update', value: { event } })).toBeUndefined();
  });

  it('phone_number_quality_update and business_capability_update: quality, limit (both spellings, -1 unlimited) and throughput', () => {
    const q = (value: Record<string, unknown>) => accountUpdate({ field: 'phone_number_quality_update', value });
    expect(q({ event: 'UPGRADE', old_limit: 'TIER_250', max_daily_conversations_per_business: '2000' })).toEqual({ messagingLimit: 'TIER_2K' });
    expect(q({ event: 'DOWNGRADE', current_limit: 'TIER_1K' })).toEqual({ messagingLimit: 'TIER_1K' });
    expect(q({ event: 'FLAGGED' })).toEqual({ qualityRating: 'RED' });
    expect(q({ event: 'UNFLAGGED', max_daily_conversations_per_business: 10000 })).toEqual({ qualityRating: 'GREEN', messagingLimit: 'TIER_10K' });
    expect(q({ event: 'THROUGHPUT_UPGRADE', max_daily_conversations_per_business: 'x' })).toEqual({ throughput: 1000 });
    expect(q({ event: 'ONBOARDING' })).toBeUndefined();
    expect(accountUpdate({ field: 'business_capability_update', value: { max_daily_conversations_per_business: -1 } })).toEqual({
      messagingLimit: 'TIER_UNLIMITED',
    });
    expect(accountUpdate({ field: 'business_capability_update', value: { max_phone_numbers_per_business: 2 } })).toBeUndefined();
    expect(accountUpdate({ field: 'messages', value: { event: 'ACCOUNT_RESTRICTION' } })).toBeUndefined();
  });

  it('template quality, and only a completed category change (previous_category present)', () => {
    expect(templateUpdate({ field: 'message_template_quality_update', value: { message_template_id: 806312974732579, new_quality_score: 'YELLOW' } })).toEqual({
      templateId: '806312974732579',
      quality: 'YELLOW',
    });
    expect(
      templateUpdate({ field: 'template_category_update', value: { message_template_id: 12, previous_category: 'UTILITY', new_category: 'MARKETING' } }),
    ).toEqual({ templateId: '12', category: 'MARKETING' });
    expect(
      templateUpdate({ field: 'template_category_update', value: { message_template_id: 12, correct_category: 'MARKETING', new_category: 'UTILITY' } }),
    ).toBeUndefined();
    expect(templateUpdate({ field: 'message_template_quality_update', value: { new_quality_score: 'RED' } })).toBeUndefined();
    expect(templateUpdate({ field: 'message_template_quality_update', value: { message_template_id: 'x\u0000', new_quality_score: 'RED' } })).toBeUndefined();
  });
});
