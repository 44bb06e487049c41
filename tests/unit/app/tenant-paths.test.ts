import { SHIPPED_CATALOG } from '../../helpers/shipped-jobs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkPayloadValue } from '@/dashboard/client/dead-letters-payload';
import { PermanentError } from '@/lib/errors/permanent-error';
import { resolveInside } from '@/lib/fs/resolve-inside';
import { changedLockedFields } from '@/lib/jobs/locked-fields';
import { lockedFieldsOf } from '../../helpers/shipped-jobs';
import { dataDeletionSchema, dataExportSchema } from '@/jobs/maintenance/schemas';
import { isTenant, tenantSchema } from '@/lib/jobs/tenant';

describe('the tenant id rule', () => {
  const refused = ['.', '..', '...', '.hidden', '../x', 'a/b', 'a\\b', '', 'a\0b', 'x'.repeat(129), 'a b'];
  const accepted = ['acme', 'acme-1', 'a.b', 'org_9', 'A', 'x'.repeat(128), 'v1..2'];

  it.each(refused)('refuses %j in the schema, in isTenant and as a workspace', (id) => {
    expect(tenantSchema.safeParse({ orgId: id }).success).toBe(false);
    expect(isTenant({ orgId: id })).toBe(false);
    expect(isTenant({ orgId: 'acme', workspaceId: id })).toBe(false);
  });

  it.each(accepted)('accepts %j', (id) => {
    expect(tenantSchema.safeParse({ orgId: id }).success).toBe(true);
    expect(isTenant({ orgId: id, workspaceId: id })).toBe(true);
  });

  it('keeps data-export and data-deletion payloads from naming a dot folder', () => {
    for (const schema of [dataExportSchema, dataDeletionSchema]) {
      expect(schema.safeParse({ orgId: '..' }).success).toBe(false);
      expect(schema.safeParse({ orgId: '.' }).success).toBe(false);
      expect(schema.safeParse({ orgId: 'acme', workspaceId: '..' }).success).toBe(false);
      expect(schema.safeParse({}).success).toBe(false);
    }
  });
});

describe('resolveInside', () => {
  const root = path.resolve('/data/exports');

  it('returns paths strictly inside the root', () => {
    expect(resolveInside(root, 'acme')).toBe(path.join(root, 'acme'));
    expect(resolveInside(root, 'acme', 'data-1', 'manifest.json')).toBe(path.join(root, 'acme', 'data-1', 'manifest.json'));
  });

  it.each([
    [['..']],
    [['.']],
    [['acme', '..']],
    [['..', 'exports-evil']],
    [['../exports-evil']],
    [['/etc/passwd']],
    [['acme', '/']],
    [['']],
    [['a\0b']],
  ])('refuses %j with a permanent error', (parts) => {
    expect(() => resolveInside(root, ...parts)).toThrow(PermanentError);
  });

  it('takes one plain name per segment, so no segment can climb or hold a separator', () => {
    expect(() => resolveInside(root, 'a/../b')).toThrow(/not one plain/);
    expect(() => resolveInside(root, '..', 'exports-evil')).toThrow(/not one plain/);
  });
});

describe('locked fields of an edit-and-replay', () => {
  it('finds added, removed and changed fields, ignoring key order', () => {
    expect(changedLockedFields({ a: 1, b: { x: 1, y: 2 } }, { a: 1, b: { y: 2, x: 1 } }, ['a', 'b'])).toEqual([]);
    expect(changedLockedFields({ a: 1 }, { a: 2 }, ['a'])).toEqual(['a']);
    expect(changedLockedFields({}, { orgId: 'x' }, ['orgId'])).toEqual(['orgId']);
    expect(changedLockedFields({ orgId: 'x' }, {}, ['orgId'])).toEqual(['orgId']);
    expect(changedLockedFields({ a: null }, {}, ['a'])).toEqual(['a']);
  });

  it('locks the tenant for every type and the resource a type names', () => {
    expect(lockedFieldsOf('webhook-dispatch')).toEqual(expect.arrayContaining(['orgId', 'workspaceId', 'webhookId']));
    expect(lockedFieldsOf('data-deletion')).toEqual(expect.arrayContaining(['orgId', 'workspaceId']));
    expect(lockedFieldsOf('embedding-batch')).toContain('namespace');
  });

  it('the editor check refuses a retargeted webhook and accepts a fixed payload', () => {
    const original = { webhookId: 'wh-acme', event: 'invoice.paid', payload: { invoiceId: 77 } };
    expect(checkPayloadValue(SHIPPED_CATALOG, 'webhook-dispatch', { ...original, webhookId: 'wh-globex' }, original)).toMatchObject({
      ok: false,
      stage: 'locked',
      fields: ['webhookId'],
    });
    expect(checkPayloadValue(SHIPPED_CATALOG, 'webhook-dispatch', { ...original, payload: { invoiceId: 78 } }, original)).toMatchObject({
      ok: true,
    });
  });

  it('a default filled in by the schema is no change', () => {
    expect(checkPayloadValue(SHIPPED_CATALOG, 'pattern-training', { modelName: 'default', epochs: 3 }, {})).toMatchObject({ ok: true });
  });
});
