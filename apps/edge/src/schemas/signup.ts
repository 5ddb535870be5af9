import Joi from 'joi';
import { uuid } from './common';

/** The state token the page got with its session (32 random bytes, base64url). */
const state = Joi.string().pattern(/^[A-Za-z0-9_-]{16,128}$/, 'state token');
/** Provider ids are numeric strings (reference §0). */
const numericId = Joi.string().pattern(/^\d{1,32}$/, 'numeric id');

export const signupPath = Joi.object({ client_id: uuid.required() });

/** POST /signup/{client_id}/complete: what the provider's flow gave the page. */
export const completeBody = Joi.object({
  state: state.required(),
  code: Joi.string().min(1).max(4096).required(),
  business_account_id: numericId.required(),
  phone_number_id: numericId.required(),
  provider_business_id: numericId,
}).required();

/** Failures the provider's flow reports in the browser (the signup service checks the same list). */
export const BROWSER_FAILURE_REASONS = ['provider_error', 'phone_number_missing', 'session_info_missing'] as const;

/** POST /signup/{client_id}/fail. */
export const failBody = Joi.object({
  state: state.required(),
  reason: Joi.string()
    .valid(...BROWSER_FAILURE_REASONS)
    .required(),
}).required();

export interface CompleteBody {
  state: string;
  code: string;
  business_account_id: string;
  phone_number_id: string;
  provider_business_id?: string;
}

export interface FailBody {
  state: string;
  reason: string;
}
