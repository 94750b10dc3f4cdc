/** A sessions_send follow-up flow as the session that drives it records it. */

export type FlowState = "primary" | "pingpong" | "announce" | "done";

/** What is fixed when the flow starts (everything a resumed flow needs, no config lookups). */
export type FlowSpec = {
  tenantId: string;
  primaryRunId: string;
  originalMessage: string;
  requesterKey?: string;
  requesterAgentId?: string;
  requesterChannel?: string;
  targetKey: string;
  targetAgentId: string;
  targetDisplayKey: string;
  targetChannel?: string;
  /** Sandboxing of each side, decided when the flow starts (the step runs' tokens carry it). */
  requesterSandboxed?: boolean;
  targetSandboxed?: boolean;
  maxTurns: number;
  /** The primary run's sessions_send hops: the step runs carry it on (src/policy/flow-steps.ts). */
  a2aDepth?: number;
};

export type Flow = {
  id: string;
  state: FlowState;
  spec: FlowSpec;
  turn: number;
  round1Reply?: string;
  latestReply?: string;
  outcome?: string;
};
