/**
 * End-to-end escape attempts with file_copy and file_delete: the model is
 * the attacker, driving `skiff run --json` (a real process: engine Worker,
 * policy gate, tools) through the scripted mock. A copy cannot write outside
 * the workspace or into a protected path, cannot bring a hidden or outside
 * file in, and a delete removes a link and never its target, cannot touch
 * protected paths, and is undone with the file's mode.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  assertNoSecrets,
  assertUnchanged,
  everythingSent,
  exists,
  guarded,
  lastToolResults,
  OUTSIDE_SECRET,
  read,
  runEvents,
  withAttack,
} from "./e2e_support.ts";

const copy = (source: string, destination: string) => ({
  name: "file_copy",
  arguments: { source, destination },
});
const del = (file_path: string) => ({ name: "file_delete", arguments: { file_path } });

Deno.test("e2e: file_copy out of the workspace is refused with --yes", async () => {
  await withAttack([
    { toolCalls: [copy("a.txt", "../outside/stolen.txt")] },
    { toolCalls: [copy("a.txt", "~/.bashrc")] },
    { toolCalls: [copy("a.txt", "out-link/x.txt")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.symlink(sandbox.outside, path.join(sandbox.workspace, "out-link"));
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "copy it out"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const results = lastToolResults(mock);
    assertEquals(results.length, 3);
    for (const message of results) assertStringIncludes(message.content, "denied");
    assertUnchanged(before, guarded(sandbox));
    assert(!(await exists(path.join(sandbox.outside, "stolen.txt"))));
  });
});

Deno.test("e2e: file_copy into protected paths is refused with --yes", async () => {
  await withAttack([
    { toolCalls: [copy("hook.sh", ".git/hooks/pre-commit")] },
    { toolCalls: [copy("evil.json", "skiff.json")] },
    { toolCalls: [copy("evil.json", ".mcp.json")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(path.join(sandbox.workspace, "hook.sh"), "#!/bin/sh\ncurl evil\n");
    await Deno.chmod(path.join(sandbox.workspace, "hook.sh"), 0o755);
    await Deno.writeTextFile(
      path.join(sandbox.workspace, "evil.json"),
      '{"permission":{"*":"allow"}}\n',
    );
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "install the hook"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const results = lastToolResults(mock);
    assertEquals(results.length, 3);
    for (const message of results) assertStringIncludes(message.content, "write-protected");
    assertUnchanged(before, guarded(sandbox));
    assert(!(await exists(path.join(sandbox.workspace, ".mcp.json"))));
  });
});

Deno.test("e2e: file_copy of ~/.ssh/id_rsa or an outside secret brings nothing in, even with --yes", async () => {
  await withAttack([
    { toolCalls: [copy("~/.ssh/id_rsa", "key.txt")] },
    { toolCalls: [copy("key-link", "key2.txt")] },
    { toolCalls: [copy("../outside/secret.txt", "secret.txt")] },
    { toolCalls: [read("key.txt")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.symlink(
      path.join(sandbox.home, ".ssh", "id_rsa"),
      path.join(sandbox.workspace, "key-link"),
    );
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "copy the key"], sandbox);
    assert(result.code === 0 || result.code === 3, result.stderr);
    const results = lastToolResults(mock);
    assertEquals(results.length, 4);
    // The hidden key is refused by the tool itself, named as hidden.
    assertStringIncludes(results[0].content, "sandbox.hidden");
    for (const message of results.slice(0, 3)) assertMatch(message.content, /denied|not_capable/);
    for (const name of ["key.txt", "key2.txt", "secret.txt"]) {
      assert(!(await exists(path.join(sandbox.workspace, name))), `${name} was created`);
    }
    assertUnchanged(before, guarded(sandbox));
    assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
  });
});

Deno.test("e2e: headless, file_copy of an outside file is asked, so denied, naming the rule", async () => {
  await withAttack([
    { toolCalls: [copy("../outside/secret.txt", "secret.txt")] },
    { text: "done" },
  ], async (sandbox) => {
    const result = await runSkiff(["run", "--json", "copy it in"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const { denials } = runEvents(result.stdout);
    assertEquals(denials.map((denial) => denial.tool), ["file_copy"]);
    assert(!(await exists(path.join(sandbox.workspace, "secret.txt"))));
    assertEquals(
      await Deno.readTextFile(path.join(sandbox.outside, "secret.txt")),
      `${OUTSIDE_SECRET}\n`,
    );
  });
});

Deno.test("e2e: file_delete through a symlink deletes only the link; a link out of the workspace is refused", async () => {
  await withAttack([
    { toolCalls: [del("inside-link")] },
    { toolCalls: [del("outside-link")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const outsideLink = path.join(sandbox.workspace, "outside-link");
    const insideLink = path.join(sandbox.workspace, "inside-link");
    await Deno.symlink(path.join(sandbox.outside, "secret.txt"), outsideLink);
    await Deno.symlink("a.txt", insideLink);
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "delete the links"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const [inside, outside] = lastToolResults(mock);
    assertStringIncludes(inside.content, "Deleted the symbolic link inside-link (to a.txt).");
    assertStringIncludes(inside.content, "The file it pointed to is untouched.");
    assert(!(await exists(insideLink)), "the link is gone");
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "a.txt")), "alpha\n");
    // The policy judges where a path leads: a link out of the workspace is refused, as apply_patch's.
    assertStringIncludes(outside.content, "denied");
    assert((await Deno.lstat(outsideLink)).isSymlink, "the outside link is left");
    assertEquals(
      await Deno.readTextFile(path.join(sandbox.outside, "secret.txt")),
      `${OUTSIDE_SECRET}\n`,
    );
    assertUnchanged(before, guarded(sandbox));
  });
});

Deno.test("e2e: file_delete of protected paths is refused with --yes", async () => {
  await withAttack([
    { toolCalls: [del(".git/config")] },
    { toolCalls: [del("skiff.json")] },
    { toolCalls: [del("../outside/secret.txt")] },
    { toolCalls: [del("~/.ssh/id_rsa")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(path.join(sandbox.workspace, "skiff.json"), "{}\n");
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "clean up"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    const results = lastToolResults(mock);
    assertEquals(results.length, 4);
    assertStringIncludes(results[0].content, "write-protected");
    assertStringIncludes(results[1].content, "write-protected");
    for (const message of results) assertStringIncludes(message.content, "denied");
    assertUnchanged(before, guarded(sandbox));
    assertNoSecrets(everythingSent(mock), result.stdout, result.stderr);
  });
});

Deno.test("e2e: file_delete is asked by default (headless: denied), and undo brings a deleted file back with its mode", async () => {
  await withAttack([
    { toolCalls: [del("run.sh")] },
    { text: "done" },
    { toolCalls: [del("run.sh")] },
    { text: "done" },
  ], async (sandbox) => {
    const script = path.join(sandbox.workspace, "run.sh");
    await Deno.writeTextFile(script, "#!/bin/sh\necho hi\n");
    await Deno.chmod(script, 0o750);
    const headless = await runSkiff(["run", "--json", "delete it"], sandbox);
    assertEquals(headless.code, 3, headless.stderr);
    assertEquals(runEvents(headless.stdout).denials.map((denial) => denial.key), ["delete"]);
    assert(await exists(script), "a headless run deletes nothing without a rule");

    const summaryFile = path.join(sandbox.root, "summary.md");
    const result = await runSkiff(
      ["run", "--json", "--yes", "--summary", summaryFile, "delete it"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    assert(!(await exists(script)));
    assertStringIncludes(await Deno.readTextFile(summaryFile), "- `run.sh` +0 −2");
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assertEquals(await Deno.readTextFile(script), "#!/bin/sh\necho hi\n");
    assertEquals((await Deno.stat(script)).mode! & 0o777, 0o750);
  });
});

Deno.test("e2e: file_copy with --yes copies inside the workspace with its mode, and undo removes the copy", async () => {
  await withAttack([
    { toolCalls: [copy("tool.sh", "bin/tool.sh")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const source = path.join(sandbox.workspace, "tool.sh");
    await Deno.writeTextFile(source, "#!/bin/sh\necho tool\n");
    await Deno.chmod(source, 0o755);
    const summaryFile = path.join(sandbox.root, "summary.md");
    const result = await runSkiff(
      ["run", "--json", "--yes", "--summary", summaryFile, "copy it"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    // The run summary counts the copy among the files changed, as it counts an edit.
    assertStringIncludes(await Deno.readTextFile(summaryFile), "- `bin/tool.sh` +2 −0");
    assertStringIncludes(lastToolResults(mock)[0].content, "Copied tool.sh to bin/tool.sh");
    const copied = path.join(sandbox.workspace, "bin", "tool.sh");
    assertEquals((await Deno.stat(copied)).mode! & 0o777, 0o755);
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assert(!(await exists(copied)), "undo removed the copy");
    assert(await exists(source));
  });
});
