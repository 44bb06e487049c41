/** Children listed per kind (pending, done, failed, ignored); the counts say how many there are in all. */
export const FLOW_CHILDREN_SHOWN = 25;
