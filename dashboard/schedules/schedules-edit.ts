import 'server-only';
import type { Bullpen } from '@/lib/bullpen';
import { AppError, isAppError } from '@/lib/errors/app-error';
import type { ScheduleSummary } from '@/lib/schedules/schedule-summary';
import { formFieldOf, formToEdit, type ScheduleFormInput } from './schedules-form';

/**
 * Saves the schedule edit form: only the fields that differ from the effective
 * schedule are sent to the service, and any refusal (the form's own check or the
 * service's) comes back as an AppError whose `details.fieldErrors` names the form
 * field, so the page shows the reason under the input it concerns. Nothing changes
 * on a refusal.
 */
export async function saveScheduleForm(
  bullpen: Pick<Bullpen, 'schedules'>,
  input: ScheduleFormInput,
  by: string,
): Promise<ScheduleSummary> {
  const current = await bullpen.schedules.get(input.name);
  const change = formToEdit(current, input);
  if (!change.ok) throw new AppError('INVALID_SCHEDULE', change.message, { fieldErrors: change.fieldErrors });
  if (!change.edit) throw new AppError('VALIDATION', `Nothing to save: "${input.name}" already has this pattern, zone and data`);
  try {
    return await bullpen.schedules.edit(input.name, change.edit, by);
  } catch (err) {
    if (isAppError(err) && typeof err.details?.reason === 'string') {
      const field = formFieldOf(err.details.field as string | undefined);
      throw new AppError(err.code, err.message, { ...err.details, fieldErrors: { [field]: [err.details.reason] } });
    }
    throw err;
  }
}
