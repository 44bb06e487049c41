'use client';

import { useRouter } from 'next/navigation';
import { Button } from '@/components/ui/button';
import { InlineResult } from '@/components/ui/inline-result';
import { useAction } from '@/components/ui/use-action';
import type { ActionResult } from '@/dashboard/client/action-result';
import type { AlertsPage } from '@/dashboard/client/alerts-view';

type Rules = AlertsPage['rules'];

/** The thresholds each rule compares, as the form shows them: [rule, field, label]. */
const FIELDS = [
  ['deadLetters', 'threshold', 'Pending dead letters at least'],
  ['criticalDeadLetter', 'windowMinutes', 'A critical type dead-lettered within (min)'],
  ['failureRate', 'percent', 'Failure rate above (%)'],
  ['failureRate', 'minutes', 'over the last (min)'],
  ['failureRate', 'minFinished', 'once this many finished'],
  ['oldestWaiting', 'seconds', 'A ready job waiting longer than (s)'],
  ['redisDown', 'seconds', 'Redis unanswered for (s)'],
] as const;
const RULES = ['deadLetters', 'criticalDeadLetter', 'failureRate', 'noWorkers', 'oldestWaiting', 'redisDown'] as const;

/** The rules' thresholds: everyone reads them, admins change them. */
export function RuleSetup({ rules, update }: { rules: Rules; update?: (input: unknown) => Promise<ActionResult<unknown>> }) {
  const router = useRouter();
  const action = useAction(update ?? (async () => ({ ok: false, code: 'FORBIDDEN', message: 'admins only' }) as const));
  return (
    <section className="card" aria-labelledby="rules-title" data-testid="alert-rules">
      <h2 id="rules-title">Rules</h2>
      <form
        aria-label="Alert rules"
        onSubmit={(e) => {
          e.preventDefault();
          const form = new FormData(e.currentTarget);
          const patch: Record<string, Record<string, unknown> | number> = {};
          for (const rule of RULES) patch[rule] = { enabled: form.get(`${rule}.enabled`) === 'on' };
          for (const [rule, field] of FIELDS) (patch[rule] as Record<string, unknown>)[field] = Number(form.get(`${rule}.${field}`));
          patch.repeatSeconds = Number(form.get('repeatSeconds'));
          void action.run(patch).then((r) => r.ok && router.refresh());
        }}
      >
        <fieldset disabled={!update} className="stack">
          <div className="row">
            {RULES.map((rule) => (
              <label key={rule}>
                <input type="checkbox" name={`${rule}.enabled`} defaultChecked={rules[rule].enabled} data-testid={`rule-${rule}-enabled`} />{' '}
                {rule}
              </label>
            ))}
          </div>
          <div className="row">
            {FIELDS.map(([rule, field, text]) => (
              <label key={`${rule}.${field}`}>
                {text}{' '}
                <input
                  type="number"
                  name={`${rule}.${field}`}
                  step="any"
                  defaultValue={(rules[rule] as Record<string, unknown>)[field] as number}
                  style={{ width: '7em' }}
                  data-testid={`rule-${rule}-${field}`}
                />
              </label>
            ))}
            <label>
              Repeat a firing alert every (s){' '}
              <input
                type="number"
                name="repeatSeconds"
                defaultValue={rules.repeatSeconds}
                style={{ width: '7em' }}
                data-testid="rule-repeatSeconds"
              />
            </label>
          </div>
          {update && (
            <div>
              <Button type="submit" variant="primary" disabled={action.pending} data-testid="rules-save">
                Save rules
              </Button>
            </div>
          )}
        </fieldset>
      </form>
      <InlineResult result={action.result} success="Rules saved: the worker uses them from its next round." testId="rules-result" />
    </section>
  );
}
