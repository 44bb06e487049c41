/** What HttpClient returns for a 2xx answer, and what HttpResponseError carries for any other. */
export interface HttpResponse<T = unknown> {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  /** The body as text, at most maxBodyBytes of it. */
  text: string;
  /** The parsed body when it was complete JSON. */
  json?: T;
  /** The body was longer than maxBodyBytes. */
  truncated: boolean;
  /** Duration of the attempt that produced this response, body included. */
  latencyMs: number;
  attempts: number;
  requestId: string;
}
