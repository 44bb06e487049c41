/**
 * A live list that does not move under the operator. While they point at it, have a
 * row selected or have the focus in it, the rows keep the order they had when that
 * began: rows still in the fresh data take its values in place, rows gone from it stay
 * where they were (flagged, so they can be shown as gone), and new rows wait to be
 * announced. Pure, so the rule is unit-tested apart from React.
 */
export interface Held<R> {
  rows: R[];
  /** Ids of shown rows the fresh data no longer holds. */
  departed: ReadonlySet<string>;
  /** Fresh rows not shown yet, in the fresh data's order. */
  arrived: R[];
}

export function holdRows<R extends { id: string }>(shown: readonly R[], fresh: readonly R[]): Held<R> {
  const byId = new Map(fresh.map((r) => [r.id, r]));
  const shownIds = new Set(shown.map((r) => r.id));
  const departed = new Set<string>();
  const rows = shown.map((r) => {
    const next = byId.get(r.id);
    if (!next) departed.add(r.id);
    return next ?? r;
  });
  return { rows, departed, arrived: fresh.filter((r) => !shownIds.has(r.id)) };
}

/** The ids in `now` that `before` did not show: what an unheld refresh added. */
export function newIds(before: readonly { id: string }[], now: readonly { id: string }[]): string[] {
  const seen = new Set(before.map((r) => r.id));
  return now.filter((r) => !seen.has(r.id)).map((r) => r.id);
}
