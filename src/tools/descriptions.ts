/**
 * What each tool does, in words an agent reads (MCP's tools/list), and whether it changes
 * anything: read-only tools need only `operator.read` on transports that check scopes per tool.
 */
export type ToolInfo = {
  title: string;
  description: string;
  readOnly: boolean;
  params?: Record<string, string>;
};

const SESSION_KEY = 'A session key ("main", "agent:<agentId>:<name>", …), or a sessionId.';

export const TOOL_INFO: Record<string, ToolInfo> = {
  sessions_list: {
    title: "List sessions",
    description:
      "List the sessions this caller may see, newest first, in OpenClaw's row shape. Filter by kinds " +
      "(main, group, cron, hook, node, other) and activeMinutes; messageLimit adds each session's last messages.",
    readOnly: true,
    params: {
      limit: "At most this many sessions (1-200, default 100).",
      offset: "Skip this many sessions: the previous answer's nextOffset when it had hasMore.",
      activeMinutes: "Only sessions updated within this many minutes.",
      messageLimit: "Also return the last N messages of each session (0-20).",
    },
  },
  sessions_history: {
    title: "Read a session's history",
    description:
      "Read a visible session's transcript: its newest messages, sanitized (secrets redacted, long texts cut); " +
      "tool messages only with includeTools.",
    readOnly: true,
    params: {
      sessionKey: SESSION_KEY,
      limit: "At most this many messages (1-1000).",
      includeTools: "Include tool calls and results.",
    },
  },
  session_status: {
    title: "Session status",
    description:
      "A status card of a visible session (model, tokens, message count). model sets the session's model override; " +
      '"default" clears it.',
    readOnly: false,
    params: {
      sessionKey: `${SESSION_KEY} Default: the calling session.`,
      model: 'Model override to set, or "default".',
    },
  },
  agents_list: {
    title: "List agents",
    description: "The agent ids this caller may target with sessions_spawn (its own agent first).",
    readOnly: true,
  },
  sessions_send: {
    title: "Send to a session",
    description:
      "Send a message to another existing session (by sessionKey, or by label) and wait up to timeoutSeconds " +
      "(default 30; 0 = do not wait) for its reply. The reply is also announced back when the wait ends first. " +
      "Only an agent's main session is created when missing; use sessions_list for the keys.",
    readOnly: false,
    params: {
      sessionKey: SESSION_KEY,
      label: "The target session's label, instead of sessionKey.",
      message: "The message to send.",
      timeoutSeconds: "How long to wait for the reply (0-600 seconds).",
    },
  },
  sessions_spawn: {
    title: "Spawn a sub-agent",
    description:
      "Start a sub-agent on a task in a new isolated session. It runs in the background; its result is announced " +
      "to the calling session when it finishes. Returns the child session key and run id at once.",
    readOnly: false,
    params: {
      task: "What the sub-agent should do.",
      agentId: "Target agent (see agents_list). Default: the caller's.",
    },
  },
  sessions_wait: {
    title: "Wait for session messages",
    description:
      "Return a visible session's messages after afterSeq, waiting up to timeoutSeconds (default 30, at most 300) " +
      "for one to arrive. Pass nextAfterSeq back as afterSeq to keep following the session.",
    readOnly: true,
    params: {
      sessionKey: SESSION_KEY,
      afterSeq: "Return messages with a seq greater than this (0 = from the start).",
      timeoutSeconds: "How long to wait when there is nothing new yet (0-300 seconds).",
      limit: "At most this many messages (1-200).",
      includeTools: "Include tool calls and results.",
    },
  },
};
