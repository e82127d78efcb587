/**
 * `skiff acp` as an editor drives it: the child started in a test sandbox,
 * the ACP SDK's client side connected over its stdin and stdout. Every
 * `session/update` is kept in order; permission questions are answered by
 * the test's `answer`. `raw` writes a line as it is, for a malformed message,
 * and `rawLines` are the child's stdout lines as sent. An `editor` with
 * buffers offers `fs/read_text_file` and `fs/write_text_file` and answers
 * them with the test's handlers; every such request is kept in `fsRequests`.
 */
import * as acp from "@agentclientprotocol/sdk";
import { spawnSkiffPiped } from "./cli.ts";
import type { Sandbox } from "./cli.ts";

/** The editor's buffers as a test plays them: each handler offered is a capability. */
export interface EditorBuffers {
  read?: (params: acp.ReadTextFileRequest) => Promise<string> | string;
  write?: (params: acp.WriteTextFileRequest) => Promise<void> | void;
}

/** An `fs/*` request as the editor received it. */
export type FsRequest =
  | { method: "fs/read_text_file"; params: acp.ReadTextFileRequest }
  | { method: "fs/write_text_file"; params: acp.WriteTextFileRequest };

export interface AcpHarness {
  /** What skiff said it can do, at `initialize`. */
  agentCapabilities: acp.AgentCapabilities;
  fsRequests: FsRequest[];
  agent: acp.ClientContext;
  updates: acp.SessionNotification[];
  questions: acp.RequestPermissionRequest[];
  rawLines: string[];
  stderr(): string;
  raw(line: string): Promise<void>;
  /** Closes stdin; true when skiff then ended by itself, false when it had to be killed. */
  stop(): Promise<boolean>;
}

/** The option of `kind` a question offered; the test fails when there is none. */
export function option(
  question: acp.RequestPermissionRequest,
  kind: acp.PermissionOptionKind,
): acp.RequestPermissionOutcome {
  const offered = question.options.find((choice) => choice.kind === kind);
  if (!offered) throw new Error(`no ${kind} option in ${JSON.stringify(question.options)}`);
  return { outcome: "selected", optionId: offered.optionId };
}

/** Starts `skiff acp <args>`, connected and initialized. */
export async function startAcp(
  sandbox: Sandbox,
  args: string[] = [],
  answer: (question: acp.RequestPermissionRequest) => acp.RequestPermissionOutcome = () => ({
    outcome: "cancelled",
  }),
  editor: EditorBuffers = {},
): Promise<AcpHarness> {
  const child = spawnSkiffPiped(["acp", ...args], sandbox);
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  let errors = "";
  void child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (text) => void (errors += text) }),
  ).catch(() => {});
  const [forClient, forTest] = child.stdout.tee();
  const rawLines: string[] = [];
  let partial = "";
  void forTest.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({
      write(text) {
        partial += text;
        const lines = partial.split("\n");
        partial = lines.pop()!;
        rawLines.push(...lines.filter(Boolean));
      },
    }),
  ).catch(() => {});
  // Writes from the SDK and from `raw` go through one writer, whole lines each.
  const input = new WritableStream<Uint8Array>({ write: (chunk) => writer.write(chunk) });
  const updates: acp.SessionNotification[] = [];
  const questions: acp.RequestPermissionRequest[] = [];
  const fsRequests: FsRequest[] = [];
  let app = acp.client({ name: "test-editor" })
    .onNotification("session/update", ({ params }) => {
      updates.push(params);
    })
    .onRequest("session/request_permission", ({ params }) => {
      questions.push(params);
      return { outcome: answer(params) };
    });
  const { read, write } = editor;
  if (read) {
    app = app.onRequest("fs/read_text_file", async ({ params }) => {
      fsRequests.push({ method: "fs/read_text_file", params });
      return { content: await read(params) };
    });
  }
  if (write) {
    app = app.onRequest("fs/write_text_file", async ({ params }) => {
      fsRequests.push({ method: "fs/write_text_file", params });
      await write(params);
      return {};
    });
  }
  const connection = app.connect(acp.ndJsonStream(input, forClient));
  const agent = connection.agent;
  const initialized = await agent.request("initialize", {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: !!read, writeTextFile: !!write } },
    clientInfo: { name: "test-editor", version: "0" },
  });
  return {
    agentCapabilities: initialized.agentCapabilities ?? {},
    fsRequests,
    agent,
    updates,
    questions,
    rawLines,
    stderr: () => errors,
    raw: (line) => writer.write(encoder.encode(`${line}\n`)),
    async stop() {
      connection.close();
      await writer.close().catch(() => {});
      const ended = await Promise.race([
        child.status.then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 10_000)),
      ]);
      if (!ended) {
        child.kill("SIGKILL");
        await child.status;
      }
      return ended;
    },
  };
}

/** The updates of `sessionId` of one kind, in order. */
export function updatesOf<K extends acp.SessionUpdate["sessionUpdate"]>(
  harness: AcpHarness,
  sessionId: string,
  kind: K,
): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
  return harness.updates
    .filter((notification) => notification.sessionId === sessionId)
    .map((notification) => notification.update)
    .filter((update): update is Extract<acp.SessionUpdate, { sessionUpdate: K }> =>
      update.sessionUpdate === kind
    );
}

/** The answer's text as the editor put it together from its chunks. */
export function answerText(harness: AcpHarness, sessionId: string): string {
  return updatesOf(harness, sessionId, "agent_message_chunk")
    .map((update) => update.content.type === "text" ? update.content.text : "").join("");
}
