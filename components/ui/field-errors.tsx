/** A field's errors under it, announced: the browser's own check and the server's refusal alike. */
export function FieldErrors({ errors, testId }: { errors?: string[]; testId?: string }) {
  if (!errors?.length) return null;
  return (
    <span className="field-error" role="alert" data-testid={testId}>
      {errors.join(' ')}
    </span>
  );
}
