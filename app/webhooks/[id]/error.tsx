'use client';

import { SegmentError } from '@/components/layout/segment-error';

export default function WebhookError(props: { error: Error & { digest?: string }; reset(): void }) {
  return <SegmentError {...props} what="this webhook" />;
}
