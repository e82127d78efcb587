/**
 * `skiff sessions list | show | export | rm`: read the stored sessions.
 * `export --format json` is the session row, its messages and its events;
 * `--format md` is a transcript a person can read, its control characters
 * shown rather than obeyed (src/ui/safe_text.ts).
 */
import { resolveWorkspace } from "../../host/setup.ts";
import {
  type CompactionPart,
  INTERRUPTED_RESULT,
  type StoredMessage,
} from "../../engine/loop/history.ts";
import type { Session, Store } from "../../store/store.ts";
import { noSuchSession, withStore } from "../store_access.ts";
import { removeSpillFolder } from "../../store/tool_output.ts";
import { writeAll } from "../../ui/jsonl.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";
import { fencedBlock } from "../../lib/markdown_fence.ts";
import { ExitCode } from "../exit_codes.ts";
import { numberFlag } from "../number_flags.ts";
import { reportFatal } from "../report_fatal.ts";
import { describeCost, describeTokens } from "./usage.ts";

function print(text: string): void {
  writeAll(Deno.stdout, text.endsWith("\n") ? text : text + "\n");
}

function findOrReport(store: Store, id: string): Session | undefined {
  const session = store.getSession(id);
  if (!session) {
    console.error(`skiff: ${noSuchSession(id)}`);
  }
  return session;
}

export function listSessions(
  options: { dir?: string; all?: boolean; limit?: string; json?: boolean },
): Promise<number> {
  try {
    const workspace = options.all ? undefined : resolveWorkspace(options.dir);
    const limit = numberFlag("-n", options.limit) ?? 20;
    const sessions = withStore((store) => store.listSessions({ workspace, limit }));
    if (options.json) {
      for (const session of sessions) print(JSON.stringify(session));
      return Promise.resolve(ExitCode.ok);
    }
    if (sessions.length === 0) {
      print(
        workspace
          ? `No sessions in ${workspace} yet. Start one: skiff run "…" (or list all: --all)`
          : `No sessions yet. Start one: skiff run "…"`,
      );
      return Promise.resolve(ExitCode.ok);
    }
    // A title can be a subagent's description, written by the model.
    for (const line of sessionTable(sessions, !workspace)) print(neutraliseControls(line));
    return Promise.resolve(ExitCode.ok);
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}

/**
 * One line per session, its columns padded to the widest value listed, so a
 * long status (`provider_error`) or a large count does not shift the rest.
 */
export function sessionTable(sessions: Session[], showWorkspace: boolean): string[] {
  // The turn count is padded before its word, so "1 turn" and "12 turns" line up.
  const turnDigits = Math.max(0, ...sessions.map((session) => String(session.turns).length));
  const rows = sessions.map((session) => [
    session.id,
    new Date(session.updated_at).toISOString().replace("T", " ").slice(0, 16),
    session.status,
    `${String(session.turns).padStart(turnDigits)} turn${session.turns === 1 ? " " : "s"}`,
    `${session.total_tokens} tok`,
  ]);
  const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => row[column].length))) ??
    [];
  // Counts line up on the right, words on the left.
  const padded = rows.map((row) =>
    row.map((cell, column) =>
      column >= 3 ? cell.padStart(widths[column]) : cell.padEnd(widths[column])
    ).join("  ")
  );
  return sessions.map((session, index) => {
    const where = showWorkspace ? `  ${session.workspace}` : "";
    const title = session.title ? `  ${session.title}` : "";
    return `${padded[index]}${where}${title}`;
  });
}

export function showSession(id: string): Promise<number> {
  return exportSession(id, "md");
}

export function exportSession(id: string, format: "json" | "md"): Promise<number> {
  try {
    return Promise.resolve(withStore((store) => {
      const session = findOrReport(store, id);
      if (!session) return ExitCode.usage;
      const messages = store.loadHistory(session.id) as StoredMessage[];
      if (format === "json") {
        const events = store.listEvents(session.id);
        // Totals from the per-request rows: reasoning and cached tokens and
        // the cost, which the session row does not keep.
        const usage = {
          own: store.usage.ownTotals(session.id),
          with_subagents: store.usage.sessionTotals(session.id),
        };
        print(JSON.stringify({ session, usage, messages, events }, null, 2));
      } else {
        print(renderMarkdown(session, messages, usageLines(store, session)));
      }
      return ExitCode.ok;
    }));
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}

export function removeSession(id: string): Promise<number> {
  try {
    return Promise.resolve(withStore((store, dataDir) => {
      const session = findOrReport(store, id);
      if (!session) return ExitCode.usage;
      // Its subagents' sessions go with it, and so does their spilled output.
      const family = [session.id];
      for (let at = 0; at < family.length; at++) {
        family.push(...store.childSessions(family[at]).map((child) => child.id));
      }
      store.deleteSession(session.id);
      for (const member of family) removeSpillFolder(dataDir, member);
      print(`Deleted ${session.id}.`);
      return ExitCode.ok;
    }));
  } catch (error) {
    return Promise.resolve(reportFatal(error));
  }
}

/**
 * Tokens and cost from the per-request usage rows, the subagents' included
 * on a line of their own when there are any.
 */
function usageLines(store: Store, session: Session): string[] {
  const own = store.usage.ownTotals(session.id);
  const all = store.usage.sessionTotals(session.id);
  const lines = [`- Tokens: ${describeTokens(own)}`, `- Cost: ${describeCost(own)}`];
  if (all.requests > own.requests) {
    lines.push(`- With subagents: ${describeTokens(all)}; cost ${describeCost(all)}`);
  }
  if (all.unpriced_requests) {
    lines.push(
      `- (+? is the cost of requests to models with no known price: set models.<name>.cost in the config)`,
    );
  }
  return lines;
}

export function renderMarkdown(
  session: Session,
  messages: StoredMessage[],
  usage?: string[],
): string {
  const lines = [
    `# Session ${session.id}`,
    "",
    `- Workspace: ${session.workspace}`,
    `- Model: ${session.model}`,
    `- Agent: ${session.agent}`,
    `- Status: ${session.status}`,
    ...(usage ?? [`- Tokens: ${session.input_tokens} in, ${session.output_tokens} out`]),
    "",
  ];
  // A call with no result was interrupted; a resumed run tells the model so
  // (src/engine/loop/history.ts), and the transcript shows what the model read.
  let pending: { callId: string; name: string }[] = [];
  const flushPending = (stillRunning: boolean) => {
    for (const { name } of pending) {
      lines.push(
        stillRunning
          ? `### Result (none yet: ${name} is still running)`
          : `### Result (interrupted)`,
        "",
        fencedBlock(stillRunning ? "" : INTERRUPTED_RESULT),
        "",
      );
    }
    pending = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushPending(false);
    for (const part of message.parts) {
      if (part.type === "text") {
        lines.push(`## ${message.role === "user" ? "User" : "Assistant"}`, "", part.text, "");
      } else if (part.type === "compaction") {
        lines.push(...compactionMarker(part));
      } else if (part.type === "reasoning") {
        // What the model thought before answering: apart from the answer, as the chat dims it.
        lines.push(`## Assistant (reasoning)`, "", fencedBlock(part.text), "");
      } else if (part.type === "provider_data") {
        // Opaque fields for the server that wrote them: in the JSON export only.
        continue;
      } else if (part.type === "tool_call") {
        lines.push(`### Tool call: ${part.name}`, "", fencedBlock(part.arguments, "json"), "");
        pending.push({ callId: part.call_id, name: part.name });
      } else {
        pending = pending.filter((call) => call.callId !== part.call_id);
        const status = part.ok ? "ok" : `error ${part.error?.code ?? ""}`.trim();
        const body = part.ok ? part.output : `${part.error?.message ?? ""}`;
        // The output's own backticks cannot close the block (src/lib/markdown_fence.ts).
        lines.push(`### Result (${status})`, "", fencedBlock(body), "");
      }
    }
  }
  flushPending(session.status === "running");
  // For people to read, on a terminal or later with `cat`: shown, not obeyed.
  return neutraliseControls(lines.join("\n"));
}

/**
 * Where a compaction happened: what the model read from then on. The
 * messages above it stay in the transcript whole, as the store keeps them.
 */
function compactionMarker(part: CompactionPart): string[] {
  const what = part.kind === "summary"
    ? `the ${part.replaced ?? "earlier"} messages above were replaced by the handoff below`
    : `${part.pruned.length} old tool output${part.pruned.length === 1 ? "" : "s"} pruned`;
  const lines = [
    `## Compaction: ${part.kind} (${part.trigger}, ${part.tokens_before} → ${part.tokens_after} tokens)`,
    "",
    `What the model read from here on: ${what}; the transcript above is kept whole.`,
    "",
  ];
  if (part.fallback) lines.push(`The summary was not used: ${part.fallback}`, "");
  if (part.handoff) lines.push(fencedBlock(part.handoff), "");
  return lines;
}
