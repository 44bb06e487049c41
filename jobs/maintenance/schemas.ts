import { z } from 'zod';
import { tenantIdPart } from '@/lib/jobs/tenant';

export const quotaCheckSchema = z.object({
  /** Default: every tenant with a quota. */
  orgId: tenantIdPart.optional(),
});

const isoDate = z.string().datetime({ offset: true });

export const auditExportSchema = z.object({
  orgId: tenantIdPart,
  from: isoDate.optional(),
  to: isoDate.optional(),
});

export const dataExportSchema = z.object({
  orgId: tenantIdPart,
  workspaceId: tenantIdPart.optional(),
});

export const dataDeletionSchema = z.object({
  orgId: tenantIdPart,
  workspaceId: tenantIdPart.optional(),
  reason: z.string().min(1).max(500).optional(),
});
