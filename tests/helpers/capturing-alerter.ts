import { type Alert, Alerter } from '@/lib/alerts/alerter';
import { silentLogger } from '@/lib/logging/logger';

/** An Alerter that keeps what it was asked to raise, for a test to read. */
export class CapturingAlerter extends Alerter {
  readonly alerts: Alert[] = [];
  constructor() {
    super(silentLogger);
  }
  override raise(alert: Alert): void {
    this.alerts.push(alert);
  }
}
