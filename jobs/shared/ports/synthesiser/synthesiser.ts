/**
 * Writes one semantic memory from a cluster of similar episodic ones. An
 * OpenAI-compatible chat adapter is used when LLM_URL is set; otherwise a local
 * extractive synthesiser picks the cluster's most central sentences.
 */
export interface Synthesiser {
  /** Shown in the semantic memory's metadata, so a reader knows how it was made. */
  readonly name: string;
  /** One concise text for the whole cluster; never empty. */
  synthesise(contents: readonly string[], signal?: AbortSignal): Promise<string>;
}

/** The consolidation instruction of the background-workers requirements (docs/requirements.md#background-workers), shared by both adapters' docs. */
export const CONSOLIDATION_PROMPT =
  'Consolidate these memories into one concise semantic memory. Keep every durable fact, ' +
  'drop repetition and incidental detail, and answer with the memory text only.';
