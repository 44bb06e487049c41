/** The health page's live JSON endpoint (app/health/live/route.ts). */
export const HEALTH_LIVE_URL = '/health/live';
