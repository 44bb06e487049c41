import type { z } from 'zod';
import type { slackSyncSchema } from './schemas';
import type { JobHandler } from '@/lib/runtime/handler';
import { PermanentError } from '@/lib/errors/permanent-error';
import { HttpClient } from '@/lib/http/http-client';
import { SlackClient } from './slack/slack-client';
import { SlackChannelSync, type SlackSyncResult } from './slack/slack-channel-sync';
import type { Synthesiser } from '../shared/ports/synthesiser/synthesiser';
import type { AppStores } from '../app-stores';

type Payload = z.output<typeof slackSyncSchema>;

export interface SlackSyncOptions {
  /** @defaultValue a client with the runtime's default retry policy */
  http?: HttpClient;
  /** Writes summaries. @defaultValue from LLM_URL, else the extractive synthesiser */
  synthesiser?: Synthesiser;
}

/**
 * slack-sync: pulls the channel's messages newer than the stored cursor into the job
 * tenant's episodic memories (`conversations.history`, `limit` messages per run at
 * most, the rest on the next run) and, with `postSummary`, posts one summary of each
 * completed window (`chat.postMessage`). Needs SLACK_TOKEN; SLACK_BASE_URL points it
 * elsewhere than https://slack.com/api. See SlackChannelSync for why retries do not duplicate.
 */
export function createSlackSyncHandler(stores: AppStores, opts: SlackSyncOptions = {}): JobHandler<Payload, SlackSyncResult> {
  const { settings, logger, memories } = stores;
  const http = opts.http ?? new HttpClient({ logger });
  const states = stores.slackStates;
  const synthesiser = opts.synthesiser ?? stores.synthesiser;

  return async (ctx) => {
    if (!settings.SLACK_TOKEN) {
      throw new PermanentError(
        'slack-sync needs SLACK_TOKEN: set it to a Slack bot token (xoxb-…) with the channels:history scope ' +
          '(and chat:write to post summaries); SLACK_BASE_URL may point at another Slack API endpoint',
        'CONFIGURATION',
      );
    }
    if (!ctx.tenant) {
      throw new PermanentError(
        'slack-sync needs a tenant: dispatch it with { tenant: { orgId } } so its memories have an owner',
        'VALIDATION',
      );
    }
    const client = new SlackClient({ token: settings.SLACK_TOKEN, baseUrl: settings.SLACK_BASE_URL, http });
    const sync = new SlackChannelSync(client, states, memories, synthesiser);
    return sync.sync({
      tenant: ctx.tenant,
      channelId: ctx.data.channelId,
      limit: ctx.data.limit,
      postSummary: ctx.data.postSummary,
      now: Date.now(),
      signal: ctx.signal,
      onProgress: (percent, phase, detail) => ctx.progress(percent, phase, detail),
    });
  };
}
