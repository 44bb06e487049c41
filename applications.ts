import { mailerApp } from '@/examples/mailer/app';
import { shippedApp } from '@/jobs/shipped-app';
import type { AnyBullpenApp } from '@/lib/app/app-definition';
import { type Config, ConfigError } from '@/lib/config';

/**
 * The applications this repository can run, by the name BULLPEN_APP gives. A static
 * list, not a path to import: the dashboard is bundled by Next.js, so only what is
 * imported here can run in it, and an environment variable never chooses which file a
 * process loads. A team adds its own application with one line here.
 */
export const APPLICATIONS: Readonly<Record<string, AnyBullpenApp>> = {
  shipped: shippedApp,
  mailer: mailerApp,
};

/** The application `config.BULLPEN_APP` names; ConfigError when it names none of APPLICATIONS. */
export function selectedApp(config: Pick<Config, 'BULLPEN_APP'>): AnyBullpenApp {
  const app = Object.hasOwn(APPLICATIONS, config.BULLPEN_APP) ? APPLICATIONS[config.BULLPEN_APP] : undefined;
  if (!app) {
    throw new ConfigError([
      `BULLPEN_APP: no application is named "${config.BULLPEN_APP}"; known: ${Object.keys(APPLICATIONS).join(', ')} (a team adds its own in applications.ts)`,
    ]);
  }
  return app;
}
