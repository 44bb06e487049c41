import { describe, expect, it } from 'vitest';
import { redactWebhookUrl } from '@/dashboard/webhooks/webhook-url';

describe('redactWebhookUrl: a webhook URL without its secrets', () => {
  it('removes userinfo credentials', () => {
    expect(redactWebhookUrl('https://alice:s3cret@hooks.example.com/in')).toBe('https://…@hooks.example.com/in');
    expect(redactWebhookUrl('https://token@hooks.example.com/in')).toBe('https://…@hooks.example.com/in');
  });

  it('keeps query names and hides every value and the fragment', () => {
    expect(redactWebhookUrl('https://h.example.com/hook?token=abc&sig=1#x')).toBe('https://h.example.com/hook?token=…&sig=…#…');
  });

  it('hides path segments that look like tokens, keeps ordinary ones', () => {
    expect(redactWebhookUrl('https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX1234XXXX')).toBe(
      'https://hooks.slack.com/services/T000/B000/…',
    );
    expect(redactWebhookUrl('http://127.0.0.1:8080/bullpen/events')).toBe('http://127.0.0.1:8080/bullpen/events');
  });

  it('shows nothing of a value that is not a URL', () => {
    expect(redactWebhookUrl('not a url with a password')).toBe('…');
  });
});
