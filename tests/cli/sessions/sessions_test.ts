/**
 * `skiff sessions`: an id prefix that matches more than one session is the
 * user's mistake to correct (exit 2 with the candidates), not an internal
 * error; the list stays aligned; `show` is the transcript the model read.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff } from "../../support/cli.ts";
import { INTERRUPTED_RESULT } from "../../../src/engine/loop/history.ts";
import { openStore, type Session } from "../../../src/store/store.ts";

Deno.test("an ambiguous session prefix is a usage error naming the matches", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
    for (let i = 0; i < 2; i++) {
      const made = await runSkiff(["tool", "read", '{"file_path":"a.txt"}'], sandbox);
      assertEquals(made.code, 0, made.stderr);
    }
    for (const args of [["sessions", "show", "ses_"], ["undo", "--session", "ses_"]]) {
      const result = await runSkiff(args, sandbox);
      assertEquals(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
      assertStringIncludes(result.stderr, "matches more than one session");
      assertStringIncludes(result.stderr, "Give more of the id");
      assert(!result.stderr.includes("internal error"), result.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("sessions list -n takes a positive whole number, or says so", async () => {
  const sandbox = await makeSandbox();
  try {
    for (const bad of ["abc", "0", "-3"]) {
      const result = await runSkiff(["sessions", "list", "-n", bad], sandbox);
      assertEquals(result.code, 2, `-n ${bad}: ${result.stdout}${result.stderr}`);
      assertStringIncludes(result.stderr, "positive whole number");
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a data folder that cannot be created is the same clean exit 2 for run, tool and sessions", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", SKIFF_MODEL: "m" });
  try {
    const aFile = `${sandbox.root}/not-a-folder`;
    await Deno.writeTextFile(aFile, "x");
    // Root ignores folder permissions, so the cases are a file in the way, at the folder or above it.
    for (const dataDir of [aFile, `${aFile}/skiff`]) {
      for (
        const args of [
          ["run", "hello"],
          ["tool", "read", '{"file_path":"."}'],
          ["sessions", "list"],
        ]
      ) {
        const result = await runSkiff(args, sandbox, { env: { SKIFF_DATA_DIR: dataDir } });
        const what = `${args[0]} with SKIFF_DATA_DIR=${dataDir}: ${result.stderr}`;
        assertEquals(result.code, 2, what);
        assert(!result.stderr.includes("internal error"), what);
        assertStringIncludes(result.stderr, `cannot create the data folder ${dataDir}`);
        assertStringIncludes(result.stderr, "Set SKIFF_DATA_DIR to a writable folder");
      }
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("sessions list keeps its columns aligned whatever the status and counts", async () => {
  const sandbox = await makeSandbox();
  try {
    const store = openStore(sandbox.dataDir);
    const rows: [string, number, number][] = [
      ["completed", 1, 12],
      ["provider_error", 12, 123456],
      ["interrupted", 3, 900],
    ];
    for (const [status, turns, tokens] of rows) {
      const session = store.createSession({
        workspace: sandbox.workspace,
        model: "m",
        agent: "build",
      });
      store.updateSession(session.id, { status: status as Session["status"] });
      store.addUsage(
        session.id,
        { input_tokens: tokens, output_tokens: 0, total_tokens: tokens },
        turns,
      );
    }
    store.close();
    const result = await runSkiff(["sessions", "list"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split("\n");
    assertEquals(lines.length, 3, result.stdout);
    for (const column of [" turn", " tok"]) {
      const ends = lines.map((line) => line.indexOf(column));
      assertEquals(new Set(ends).size, 1, `"${column}" moves:\n${result.stdout}`);
    }
    assertStringIncludes(result.stdout, "provider_error  12 turns  123456 tok");
    assertStringIncludes(result.stdout, "completed        1 turn       12 tok");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("sessions show gives a call with no result the interrupted result the model was told", async () => {
  const sandbox = await makeSandbox();
  try {
    const store = openStore(sandbox.dataDir);
    const session = store.createSession({
      workspace: sandbox.workspace,
      model: "m",
      agent: "build",
    });
    store.updateSession(session.id, { status: "interrupted" });
    const ask = store.appendMessage(session.id, "user");
    store.appendPart(session.id, ask, "text", { type: "text", text: "run the tests" });
    const answer = store.appendMessage(session.id, "assistant");
    for (const [callId, command] of [["call_a", "npm test"], ["call_b", "npm run lint"]]) {
      store.appendPart(session.id, answer, "tool_call", {
        type: "tool_call",
        call_id: callId,
        name: "bash",
        arguments: JSON.stringify({ command }),
      });
    }
    const results = store.appendMessage(session.id, "tool");
    store.appendPart(session.id, results, "tool_result", {
      type: "tool_result",
      call_id: "call_a",
      tool: "bash",
      ok: true,
      output: "1 passed\nexit code: 0",
    });
    const again = store.appendMessage(session.id, "user");
    store.appendPart(session.id, again, "text", { type: "text", text: "go on" });
    store.close();
    const result = await runSkiff(["sessions", "show", session.id], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const shown = result.stdout;
    assertStringIncludes(shown, "### Result (ok)\n\n```\n1 passed");
    assertStringIncludes(
      shown,
      `### Result (interrupted)\n\n\`\`\`\n${INTERRUPTED_RESULT}\n\`\`\``,
    );
    assertEquals(shown.split("### Result (interrupted)").length - 1, 1, shown);
    assert(
      shown.indexOf("### Result (interrupted)") < shown.indexOf("go on"),
      "the interrupted result comes before the next user message",
    );
  } finally {
    await sandbox.cleanup();
  }
});
