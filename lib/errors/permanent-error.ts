/**
 * Thrown by a handler when retrying cannot help (bad input, a target that refuses
 * for good). The runtime fails the job at once and writes its dead letter.
 */
export class PermanentError extends Error {
  constructor(
    message: string,
    readonly code = 'PERMANENT',
  ) {
    super(message);
    this.name = 'PermanentError';
  }
}
