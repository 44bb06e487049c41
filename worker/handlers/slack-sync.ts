import type { PayloadOf } from '@/lib/jobs/registry';
import type { JobHandler } from '@/lib/runtime/handler';
import { PermanentError } from '@/lib/errors/permanent-error';
import { HttpClient } from '@/lib/http/http-client';
import { MemoryStore } from '@/lib/domain/memories/memory-store';
import { SlackClient } from '@/lib/ports/slack/slack-client';
import { SlackSync, type SlackSyncResult } from '@/lib/ports/slack/slack-sync';
import { SlackSyncStateStore } from '@/lib/ports/slack/slack-sync-state';
import { createSynthesiser } from '@/lib/ports/synthesiser/create-synthesiser';
import type { Synthesiser } from '@/lib/ports/synthesiser/synthesiser';
import type { HandlerDeps } from './deps';

type Payload = PayloadOf<'slack-sync'>;

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
 * elsewhere than https://slack.com/api. See SlackSync for why retries do not duplicate.
 */
export function createSlackSyncHandler(deps: HandlerDeps, opts: SlackSyncOptions = {}): JobHandler<Payload, SlackSyncResult> {
  const { redis, keys, config, logger } = deps.bullpen;
  const http = opts.http ?? new HttpClient({ logger });
  const states = new SlackSyncStateStore(redis, keys);
  const memories = new MemoryStore(redis, keys);
  const synthesiser = opts.synthesiser ?? createSynthesiser(config, { client: http, logger });

  return async (ctx) => {
    if (!config.SLACK_TOKEN) {
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
    const client = new SlackClient({ token: config.SLACK_TOKEN, baseUrl: config.SLACK_BASE_URL, http });
    const sync = new SlackSync(client, states, memories, synthesiser);
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
