import { PermanentError } from '@/lib/errors/permanent-error';

/**
 * Slack error codes (an `ok: false` answer) that another attempt cannot fix: the token,
 * its scopes, or the channel must change first.
 */
const PERMANENT_SLACK_ERRORS = new Set([
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'missing_scope',
  'not_allowed_token_type',
  'channel_not_found',
  'not_in_channel',
  'is_archived',
  'invalid_arguments',
  'invalid_cursor',
  'invalid_ts_latest',
  'invalid_ts_oldest',
  'msg_too_long',
  'no_text',
  'restricted_action',
  'team_access_not_granted',
  'ekm_access_denied',
]);

/**
 * An `ok: false` answer of the Slack Web API. The known permanent codes become a
 * PermanentError (the job fails at once with the code in its message); anything else,
 * `ratelimited`, `internal_error` and unknown codes included, stays retryable.
 */
export function slackApiError(method: string, code: string): Error {
  const message = `Slack ${method} failed: ${code}`;
  if (PERMANENT_SLACK_ERRORS.has(code)) return new PermanentError(message, `SLACK_${code.toUpperCase()}`);
  return Object.assign(new Error(message), { name: 'SlackApiError', code: `SLACK_${code.toUpperCase()}` });
}
