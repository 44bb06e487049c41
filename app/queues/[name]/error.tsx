'use client';

import { SegmentError } from '@/components/layout/segment-error';

export default function QueueError(props: { error: Error & { digest?: string }; reset(): void }) {
  return <SegmentError {...props} what="this queue" />;
}
