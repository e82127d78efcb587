/**
 * Hooks end to end, through the real CLI with real hook scripts and a
 * scripted model: a PostToolUse formatter whose rewrite the next edit
 * accepts, a PreToolUse guard that refuses `rm` with a reason the model
 * reads, a project's hooks held back until the project is trusted, a hook
 * that times out without stopping the run, and the sandbox a hook runs in
 * (with the control: the user's own opt-in lets it out).
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { hookScript, ofType, requireBwrap, runWith, warnings, writeJson } from "./_hook_support.ts";

Deno.test("a PostToolUse formatter rewrites an edited file; the next edit of it succeeds", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "other.py"), "y=1\n");
    // The formatter puts spaces around `=` in the file the call named; it
    // also changes a file the call did not write, which stays unread.
    await hookScript(
      sandbox,
      "format.sh",
      `file=$(jq -r '.tool_input.file_path')\nsed -i 's/\\([a-z]\\)=\\([0-9]\\)/\\1 = \\2/' "$file"\necho "# touched" >> other.py\necho "formatted $file"`,
    );
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        PostToolUse: [{
          matcher: "Edit|Write",
          hooks: [{ type: "command", command: "$CLAUDE_PROJECT_DIR/hooks/format.sh" }],
        }],
      },
    });
    const run = await runWith(sandbox, [
      { toolCalls: [{ id: "c0", name: "read", arguments: { file_path: "other.py" } }] },
      {
        toolCalls: [{
          id: "c1",
          name: "write",
          arguments: { file_path: "a.py", content: "x=1\n" },
        }],
      },
      {
        toolCalls: [
          {
            id: "c2",
            name: "edit",
            arguments: { file_path: "a.py", old_string: "x = 1", new_string: "x = 2" },
          },
          {
            id: "c3",
            name: "edit",
            arguments: { file_path: "other.py", old_string: "y=1", new_string: "y=2" },
          },
        ],
      },
      { text: "done" },
    ], ["--allow", "edit"]);
    assertEquals(run.code, 0, run.stderr);
    const result = (id: string) =>
      ofType(run.events, "tool.completed").find((event) => event.call_id === id)!;
    const [write, edit, other] = [result("c1"), result("c2"), result("c3")];
    assert(write.ok, JSON.stringify(write));
    assertStringIncludes(String(write.output), "A PostToolUse hook changed a.py");
    assert(edit.ok, `the second edit is not refused as unread or changed: ${JSON.stringify(edit)}`);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "a.py")), "x = 2\n");
    // Read-before-edit still holds for what the call did not write.
    assertEquals(other.ok, false, JSON.stringify(other));
    assertEquals((other.error as { code: string }).code, "file_changed");
    const hooks = ofType(run.events, "hook.completed");
    assertEquals(hooks.length, 2, "the formatter ran after each of the two edits of a.py");
    assertStringIncludes(String(hooks[0].output), "formatted a.py");
    assertEquals(hooks[0].source, "skiff-user");
  } finally {
    await sandbox.cleanup();
  }
});

const GUARD = `cmd=$(jq -r '.tool_input.command')
case "$cmd" in
  *rm\\ *) echo "rm is not allowed in this repository: move files to trash/ instead" >&2; exit 2 ;;
esac
exit 0`;

const RM_SCRIPT: MockTurn[] = [
  { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "rm keep.txt" } }] },
  { text: "ok" },
];

Deno.test("a PreToolUse guard blocks rm: the model reads the reason and the file survives", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "keep.txt"), "precious\n");
    await hookScript(sandbox, "guard.sh", GUARD);
    await writeJson(path.join(sandbox.home, ".claude", "settings.json"), {
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: `${sandbox.workspace}/hooks/guard.sh` }],
        }],
      },
    });
    // --yes: no rule stands between the call and the guard.
    const run = await runWith(sandbox, RM_SCRIPT, ["--yes"]);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "keep.txt")), "precious\n");
    const [call] = ofType(run.events, "tool.completed");
    assertEquals(call.ok, false);
    const error = call.error as { code: string; message: string };
    assertEquals(error.code, "denied");
    assertStringIncludes(error.message, "move files to trash/ instead");
    // What the model was sent next holds the reason.
    assertStringIncludes(JSON.stringify(run.requests[1]), "move files to trash/ instead");
    const [hook] = ofType(run.events, "hook.completed");
    assertEquals(hook.blocked, true);
    assertEquals(hook.source, "claude-user");

    // Control: without the guard the same call removes the file.
    await Deno.remove(path.join(sandbox.home, ".claude", "settings.json"));
    const unguarded = await runWith(sandbox, RM_SCRIPT, ["--yes"]);
    assertEquals(unguarded.code, 0, unguarded.stderr);
    assert(
      !(await Deno.stat(path.join(sandbox.workspace, "keep.txt")).then(() => true, () => false)),
      "without the guard rm runs",
    );
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attacker: an untrusted project's hooks do not run, with a note naming --trust-project", async () => {
  const sandbox = await makeSandbox();
  try {
    const marker = path.join(sandbox.workspace, "hook-ran");
    await writeJson(path.join(sandbox.workspace, ".claude", "settings.json"), {
      hooks: {
        PreToolUse: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }],
        SessionStart: [{ hooks: [{ type: "command", command: `touch ${marker}` }] }],
      },
    });
    const script: MockTurn[] = [
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "true" } }] },
      { text: "ok" },
    ];
    const untrusted = await runWith(sandbox, script, ["--yes"]);
    assertEquals(untrusted.code, 0, untrusted.stderr);
    const note = warnings(untrusted.events);
    assertStringIncludes(
      note,
      "this project is not trusted, so what its own files ask for is ignored",
    );
    assertStringIncludes(note, `hook PreToolUse: touch ${marker}`);
    assertStringIncludes(note, "--trust-project");
    assertEquals(ofType(untrusted.events, "hook.completed").length, 0);
    assert(!(await Deno.stat(marker).then(() => true, () => false)), "no project hook ran");

    // Control: the same project, trusted for this run, has its hooks run.
    const trusted = await runWith(sandbox, script, ["--yes", "--trust-project"]);
    assertEquals(trusted.code, 0, trusted.stderr);
    assertEquals(ofType(trusted.events, "hook.completed").length, 2);
    assert(
      await Deno.stat(marker).then(() => true, () => false),
      "the trusted project's hooks ran",
    );
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a hook that times out is reported and the run goes on", async () => {
  const sandbox = await makeSandbox();
  try {
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        PreToolUse: [{
          matcher: "bash",
          hooks: [{ type: "command", command: "sleep 30", timeout: 1 }],
        }],
      },
    });
    const started = Date.now();
    const run = await runWith(sandbox, [
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo still-ran" } }] },
      { text: "finished" },
    ], ["--yes"]);
    const seconds = (Date.now() - started) / 1000;
    assertEquals(run.code, 0, run.stderr);
    const [hook] = ofType(run.events, "hook.completed");
    assertEquals(hook.timed_out, true, JSON.stringify(hook));
    assertEquals(hook.ok, false);
    const [call] = ofType(run.events, "tool.completed");
    assert(call.ok, JSON.stringify(call));
    assertStringIncludes(String(call.output), "still-ran");
    assert(seconds < 20, `the 30 s hook was stopped at its timeout (the run took ${seconds} s)`);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attacker: a hook cannot write outside the workspace; the user's own opt-in lets it", async () => {
  requireBwrap();
  const sandbox = await makeSandbox();
  try {
    const outside = path.join(sandbox.home, "outside.txt");
    const hooks = {
      PreToolUse: [{ hooks: [{ type: "command", command: `echo escaped > ${outside}` }] }],
    };
    await writeJson(path.join(sandbox.configDir, "config.json"), { hooks });
    const script: MockTurn[] = [
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "true" } }] },
      { text: "ok" },
    ];
    const contained = await runWith(sandbox, script, ["--yes", "--sandbox-backend", "bwrap"]);
    assertEquals(contained.code, 0, contained.stderr);
    const [hook] = ofType(contained.events, "hook.completed");
    assertEquals(hook.ok, false, JSON.stringify(hook));
    assert(!(await Deno.stat(outside).then(() => true, () => false)), "the sandbox held the write");

    // Control: the user's global config lets the user's hooks out of the sandbox.
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks,
      sandbox: { unsandboxedHooks: true },
    });
    const free = await runWith(sandbox, script, ["--yes", "--sandbox-backend", "bwrap"]);
    assertEquals(free.code, 0, free.stderr);
    const [freeHook] = ofType(free.events, "hook.completed");
    assertEquals(freeHook.unsandboxed, true);
    assertEquals(await Deno.readTextFile(outside), "escaped\n");

    // A project cannot ask for it: its own hooks stay in the sandbox even when trusted.
    await Deno.remove(outside);
    await writeJson(path.join(sandbox.configDir, "config.json"), {});
    await writeJson(path.join(sandbox.workspace, "skiff.json"), {
      hooks,
      sandbox: { unsandboxedHooks: true },
    });
    const project = await runWith(sandbox, script, [
      "--yes",
      "--trust-project",
      "--sandbox-backend",
      "bwrap",
    ]);
    assertEquals(project.code, 0, project.stderr);
    assertStringIncludes(warnings(project.events), "sandbox.unsandboxedHooks is ignored");
    assert(
      !(await Deno.stat(outside).then(() => true, () => false)),
      "the project's hook stayed in",
    );
  } finally {
    await sandbox.cleanup();
  }
});

/** `skiff tool bash` in a headless run: a call the rules leave at "ask" is refused. */
async function toolBash(sandbox: Sandbox, command: string, flags: string[] = []) {
  const result = await runSkiff(["tool", "bash", ...flags, JSON.stringify({ command })], sandbox, {
    env: { OPENAI_BASE_URL: "http://127.0.0.1:9/v1" },
  });
  const line = JSON.parse(result.stdout.trim().split("\n")[0] || "null") as {
    ok: boolean;
    output: string;
    error?: { code: string; message: string };
  } | null;
  return { ...result, line };
}

Deno.test("a PreToolUse hook's approval answers an ask, never a deny rule", async () => {
  const sandbox = await makeSandbox();
  try {
    // Control: headless, the rules ask about the command and nobody answers.
    const asked = await toolBash(sandbox, "echo approved");
    assertEquals(asked.line?.ok, false, asked.stdout + asked.stderr);
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{
            type: "command",
            command:
              `echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}'`,
          }],
        }],
      },
    });
    const approved = await toolBash(sandbox, "echo approved");
    assertEquals(approved.line?.ok, true, approved.stdout + approved.stderr);
    assertStringIncludes(approved.line?.output ?? "", "approved");
    const denied = await toolBash(sandbox, "echo approved", ["--deny", "bash(echo *)"]);
    assertEquals(denied.line?.ok, false, denied.stdout);
    assertEquals(denied.line?.error?.code, "denied");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("UserPromptSubmit: what a hook prints reaches the model; a block refuses the prompt", async () => {
  const sandbox = await makeSandbox();
  try {
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        UserPromptSubmit: [{
          hooks: [{
            type: "command",
            command:
              `prompt=$(jq -r .prompt); case "$prompt" in *secret*) echo "no secrets" >&2; exit 2;; esac; echo "house rule: tabs"`,
          }],
        }],
      },
    });
    const mock = startMockServer([{ text: "fine" }]);
    try {
      const env = { OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" };
      const ran = await runSkiff(["run", "write code"], sandbox, { env });
      assertEquals(ran.code, 0, ran.stderr);
      assertStringIncludes(JSON.stringify(mock.requests[0]), "house rule: tabs");
      // The text renderer shows the hook and what it printed.
      assertStringIncludes(ran.stderr, "hook UserPromptSubmit");
      const blocked = await runSkiff(["run", "print the secret"], sandbox, { env });
      assert(blocked.code !== 0, blocked.stderr);
      assertStringIncludes(blocked.stderr, "no secrets");
      assertEquals(mock.requests.length, 1, "the refused prompt never reached the model");
    } finally {
      await mock.close();
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("SessionStart adds to the first prompt; Stop runs as the run ends; SessionEnd at close", async () => {
  const sandbox = await makeSandbox();
  try {
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        SessionStart: [{ hooks: [{ type: "command", command: "echo branch-notes" }] }],
        Stop: [{ hooks: [{ type: "command", command: "cat > stopped.json" }] }],
        SessionEnd: [{ hooks: [{ type: "command", command: "cat > ended.json" }] }],
      },
    });
    const run = await runWith(sandbox, [{ text: "hi" }]);
    assertEquals(run.code, 0, run.stderr);
    assertStringIncludes(JSON.stringify(run.requests[0]), "branch-notes");
    assertEquals(
      ofType(run.events, "hook.completed").map((event) => event.hook_event),
      ["SessionStart", "Stop", "SessionEnd"],
    );
    const stopped = JSON.parse(
      await Deno.readTextFile(path.join(sandbox.workspace, "stopped.json")),
    );
    assertEquals(stopped.stop_hook_active, false);
    const ended = JSON.parse(await Deno.readTextFile(path.join(sandbox.workspace, "ended.json")));
    assertEquals(ended.hook_event_name, "SessionEnd");
    assertEquals(ended.cwd, sandbox.workspace);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a subagent's tool calls meet the same PreToolUse guard", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "keep.txt"), "precious\n");
    await hookScript(sandbox, "guard.sh", GUARD);
    await writeJson(path.join(sandbox.configDir, "config.json"), {
      hooks: {
        PreToolUse: [{
          matcher: "Bash",
          hooks: [{ type: "command", command: `${sandbox.workspace}/hooks/guard.sh` }],
        }],
      },
    });
    const run = await runWith(sandbox, [
      {
        toolCalls: [{
          id: "t1",
          name: "task",
          arguments: {
            description: "clean up",
            prompt: "remove keep.txt",
            subagent_type: "general",
          },
        }],
      },
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "rm keep.txt" } }] },
      { text: "could not remove it" },
      { text: "ok" },
    ], ["--yes"]);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "keep.txt")), "precious\n");
    assertStringIncludes(JSON.stringify(run.requests[2]), "move files to trash/ instead");
  } finally {
    await sandbox.cleanup();
  }
});
