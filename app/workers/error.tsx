'use client';

import { SegmentError } from '@/components/layout/segment-error';

export default function WorkersError(props: { error: Error & { digest?: string }; reset(): void }) {
  return <SegmentError {...props} what="the workers view" />;
}
