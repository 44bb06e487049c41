'use client';

import { SegmentError } from '@/components/layout/segment-error';

export default function AlertsError(props: { error: Error & { digest?: string }; reset(): void }) {
  return <SegmentError {...props} what="the alerts" />;
}
