/** Limits of one run. */
export interface AgentSettings {
  /** Model calls per run; the last one must call `final_answer`. */
  maxSteps: number;
  maxToolCallsPerTurn: number;
  runTimeoutMs: number;
  toolTimeoutMs: number;
  /** Whether the model sees images: those tools return are shown to it after their results. */
  seesImages?: boolean;
  /**
   * Whether the run's posts show people the images a tool makes for them (a Discord run with tool
   * posts on): the model is told whether they were shown.
   */
  showsImagesToPeople?: boolean;
  /**
   * The settings' secret values (tokens, API keys, MCP servers' env and headers): masked in every
   * tool result and error before the model, the step log or people see it (a search provider that
   * echoes its key, say), by the rule of src/text/mask-secrets.ts.
   */
  secrets?: readonly string[];
}

export const defaultAgentSettings: AgentSettings = {
  maxSteps: 10,
  maxToolCallsPerTurn: 8,
  runTimeoutMs: 120_000,
  toolTimeoutMs: 30_000,
};
