/** The schedules page's JSON endpoints (GET, session required). */
export const SCHEDULES_LIVE_URL = '/schedules/live';
export const SCHEDULE_PREVIEW_URL = '/schedules/preview';
