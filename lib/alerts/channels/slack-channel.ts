import { type AlertMessage, titleOf } from '../alert-message';

const ICON = { firing: ':red_circle:', repeat: ':large_orange_circle:', resolved: ':large_green_circle:' } as const;
const WORD = { firing: 'Firing', repeat: 'Still firing', resolved: 'Resolved' } as const;

/** Slack's mrkdwn treats these three as markup; a queue name or an error must show as text. */
function mrkdwnText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * An incoming webhook's body: `text` for notifications, and one section per alert with
 * its queue, its count and a link to the dashboard page that shows it.
 */
export function slackBody(message: AlertMessage): { text: string; blocks: unknown[] } {
  const text = titleOf(message);
  if (message.test) return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: mrkdwnText(text) } }] };
  const blocks = message.lines.map((l) => {
    const link = /^https?:/.test(l.url) ? `<${l.url}|Open in Bullpen>` : `\`${mrkdwnText(l.url)}\``;
    const queue = l.queue ? `  ·  queue \`${mrkdwnText(l.queue)}\`` : '';
    return {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `${ICON[l.kind]} *${WORD[l.kind]}*: ${mrkdwnText(l.summary)}\n${l.rule} = *${l.value}*${queue}  ·  since ${l.since}\n${link}`,
      },
    };
  });
  return { text, blocks };
}
