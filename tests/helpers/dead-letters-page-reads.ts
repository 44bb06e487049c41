/**
 * The dead-letters page's reads in a process of their own, for a peak-RSS measurement
 * (tests/integration/dlq-large-letters.test.ts): the list's first page, then each entry
 * page named in argv. Configured from the environment as the dashboard is, on the mailer
 * example's table as the CLI beside it is (the registry holds no test application).
 */
import { mailerApp } from '@/examples/mailer/app';
import { createAppBullpen } from '@/lib/app/create-app-bullpen';
import { readDeadLetterDetail, readDeadLetterList } from '@/dashboard/dead-letters/dead-letters-read';
import { loadConfig } from '@/lib/config';

export async function main(ids: string[]): Promise<number> {
  const bullpen = createAppBullpen(mailerApp, { config: loadConfig() });
  try {
    await bullpen.ready(10_000);
    const list = await readDeadLetterList(bullpen, { page: 1, pageSize: 50 });
    let details = 0;
    for (const id of ids) if (await readDeadLetterDetail(bullpen, id)) details++;
    process.stdout.write(`${JSON.stringify({ rows: list.rows.length, details })}\n`);
    return 0;
  } finally {
    await bullpen.close();
  }
}
