'use server';

import { z } from 'zod';
import { runAction, type ActionSpec } from '@/dashboard/action';
import type { ActionResult } from '@/dashboard/client/action-result';
import { SILENCE_MINUTES } from '@/dashboard/client/alerts-view';
import { channelFormSchema, channelInputOf, sendChannelTest } from '@/dashboard/alerts/alert-operations';
import { CHANNEL_ID, type ChannelView, channelSchema } from '@/lib/alerts/alert-channel';
import { alertRulesPatchSchema } from '@/lib/alerts/alert-rules';
import { AppError } from '@/lib/errors/app-error';

/*
 * The alerts page's changes, each through runAction: authorise → safeParse → lib → audit →
 * revalidate. Operators acknowledge and silence; admins set up channels and rules. No
 * audit entry holds a channel's URL, secret or password: only its kind and host.
 */

const PATHS = ['/alerts'];
const alertKey = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z]+(:[a-z0-9][a-z0-9-]*)?$/, 'an alert key such as criticalDeadLetter:queue');
const keyOnly = z.object({ key: alertKey }).strict();
const silenceSchema = z
  .object({
    key: alertKey,
    minutes: z
      .number()
      .int()
      .refine((m) => (SILENCE_MINUTES as readonly number[]).includes(m), 'one of the offered periods'),
  })
  .strict();
const channelIdOnly = z.object({ id: z.string().regex(CHANNEL_ID, 'a channel id') }).strict();

const notFiring = (key: string) => new AppError('NOT_FOUND', `Alert "${key}" is not firing (it may have resolved)`);

const ackSpec: ActionSpec<typeof keyOnly, { key: string }> = {
  name: 'alert.acknowledge',
  minRole: 'operator',
  schema: keyOnly,
  run: async ({ key }, { bullpen, user }) => {
    if (!(await bullpen.alerts.state.acknowledge(key, user.username, Date.now()))) throw notFiring(key);
    return { key };
  },
  audit: ({ key }) => ({ target: { kind: 'alert', id: key } }),
  revalidate: () => PATHS,
};

const silenceSpec: ActionSpec<typeof silenceSchema, { key: string; until: number }> = {
  name: 'alert.silence',
  minRole: 'operator',
  schema: silenceSchema,
  run: async ({ key, minutes }, { bullpen }) => {
    const until = Date.now() + minutes * 60_000;
    if (!(await bullpen.alerts.state.silence(key, until))) throw notFiring(key);
    return { key, until };
  },
  audit: ({ key, minutes }, d) => ({ target: { kind: 'alert', id: key }, details: { minutes, until: new Date(d.until).toISOString() } }),
  revalidate: () => PATHS,
};

const saveChannelSpec: ActionSpec<typeof channelFormSchema, ChannelView> = {
  name: 'alert-channel.save',
  minRole: 'admin',
  schema: channelFormSchema,
  run: async (form, { bullpen }) => {
    const checked = channelSchema.safeParse(channelInputOf(form));
    // An edit may leave a secret empty to keep the stored one: checked again after the merge.
    if (!checked.success) {
      const existing = await bullpen.alerts.config.channel(form.id);
      const onlySecrets = existing && checked.error.issues.every((i) => ['url', 'secret', 'password'].includes(String(i.path.at(-1))));
      if (!onlySecrets) throw new AppError('VALIDATION', checked.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    }
    return bullpen.alerts.config.saveChannel(channelInputOf(form), { keepSecrets: true });
  },
  // Kind and host only: the URL (Slack's holds its token), the secret and the password stay out.
  audit: (_form, v) => ({
    target: { kind: 'alert-channel', id: v.id },
    details: { kind: v.kind, host: v.host, enabled: v.enabled, secretsSet: v.secrets },
  }),
  revalidate: () => PATHS,
};

const removeChannelSpec: ActionSpec<typeof channelIdOnly, { id: string }> = {
  name: 'alert-channel.remove',
  minRole: 'admin',
  schema: channelIdOnly,
  run: async ({ id }, { bullpen }) => {
    if (!(await bullpen.alerts.config.removeChannel(id))) throw new AppError('NOT_FOUND', `No channel "${id}"`);
    return { id };
  },
  audit: ({ id }) => ({ target: { kind: 'alert-channel', id } }),
  revalidate: () => PATHS,
};

const testChannelSpec: ActionSpec<typeof channelIdOnly, { id: string; sentAt: number }> = {
  name: 'alert-channel.test',
  minRole: 'admin',
  schema: channelIdOnly,
  run: ({ id }, { bullpen }) => sendChannelTest(bullpen, id),
  audit: ({ id }) => ({ target: { kind: 'alert-channel', id } }),
  revalidate: () => PATHS,
};

type RulesChange = { changed: string[]; before: Record<string, unknown>; after: Record<string, unknown> };

const rulesSpec: ActionSpec<typeof alertRulesPatchSchema, RulesChange> = {
  name: 'alert-rules.update',
  minRole: 'admin',
  schema: alertRulesPatchSchema,
  run: async (patch, { bullpen }) => {
    const { before, after } = await bullpen.alerts.config.updateRules(patch);
    const changed = Object.keys(after).filter(
      (k) => JSON.stringify(after[k as keyof typeof after]) !== JSON.stringify(before[k as keyof typeof before]),
    );
    return { changed, before: pick(before, changed), after: pick(after, changed) };
  },
  audit: (_patch, d) => ({ target: { kind: 'alert-rules', id: 'rules' }, details: d }),
  revalidate: () => PATHS,
};

function pick(o: object, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([k]) => keys.includes(k)));
}

export async function acknowledgeAlert(input: unknown): Promise<ActionResult<{ key: string }>> {
  return runAction(ackSpec, input);
}
export async function silenceAlert(input: unknown): Promise<ActionResult<{ key: string; until: number }>> {
  return runAction(silenceSpec, input);
}
export async function saveAlertChannel(input: unknown): Promise<ActionResult<ChannelView>> {
  return runAction(saveChannelSpec, input);
}
export async function removeAlertChannel(input: unknown): Promise<ActionResult<{ id: string }>> {
  return runAction(removeChannelSpec, input);
}
export async function testAlertChannel(input: unknown): Promise<ActionResult<{ id: string; sentAt: number }>> {
  return runAction(testChannelSpec, input);
}
export async function updateAlertRules(input: unknown): Promise<ActionResult<RulesChange>> {
  return runAction(rulesSpec, input);
}
