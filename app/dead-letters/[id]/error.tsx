'use client';

import { SegmentError } from '@/components/layout/segment-error';

export default function DeadLetterError(props: { error: Error & { digest?: string }; reset(): void }) {
  return <SegmentError {...props} what="this dead letter" />;
}
