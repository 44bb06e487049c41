/** The id a page gives its main results table, so "Skip to results" can jump straight to it. */
export const RESULTS_ID = 'results';
