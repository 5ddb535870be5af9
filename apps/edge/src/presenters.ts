import type { tenantDirectory as td } from '@gateway/contracts';

/** Tenant record of spec 2.1. */
export function tenantJson(t: td.Tenant | undefined) {
  if (!t) return null;
  return {
    id: t.id,
    name: t.name,
    email: t.email,
    plan: t.plan,
    active_wabas: t.activeWabas,
    webhook_url: t.webhookUrl ?? null,
    webhook_secret: t.webhookSecret,
    billing_customer_id: t.billingCustomerId ?? null,
    billing_subscription_id: t.billingSubscriptionId ?? null,
    created_at: t.createdAt,
  };
}

/** Client record of spec 2.2 (never the access token). */
export function clientJson(c: td.Client | undefined) {
  if (!c) return null;
  return {
    id: c.id,
    tenant_id: c.tenantId,
    is_active: c.isActive,
    business_account_id: c.businessAccountId ?? null,
    phone_number_id: c.phoneNumberId ?? null,
    display_name: c.displayName,
    external_id: c.externalId ?? null,
    webhook_url: c.webhookUrl ?? null,
    webhook_registered: c.webhookRegistered,
    signup_status: c.signupStatus,
    catalog_id: c.catalogId ?? null,
    provider_business_id: c.providerBusinessId ?? null,
    success_redirect_url: c.successRedirectUrl ?? null,
    failure_redirect_url: c.failureRedirectUrl ?? null,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    embed_signup_url: c.embedSignupUrl ?? null,
  };
}
