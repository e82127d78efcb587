/**
 * Model-driven attempts through `skiff run --sandbox-backend landlock`: the
 * whole stack (engine Worker, policy gate, command guard, the Landlock exec
 * step). Protected paths are the known difference: Landlock cannot keep
 * them read-only, so these tests prove the guard puts them back and the call
 * is reported as denied. Skipped loudly where Landlock does not work.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import {
  API_KEY,
  assertNoSecrets,
  bash,
  everythingSent,
  lastToolResults,
  withAttack,
} from "./e2e_support.ts";

const found = await probeSandboxes();
if (!found.landlock) {
  console.warn(
    `\n!!! LANDLOCK E2E: Landlock does not work here (${found.reasons?.landlock}); SKIPPED. !!!\n`,
  );
}
const needsLandlock = { ignore: !found.landlock };
const HOOK = "#!/bin/sh\\ntouch ../outside/hook-ran\\n";

Deno.test({
  name: "landlock e2e: a git hook and skiff.json written by command are put back and reported",
  ...needsLandlock,
}, async () => {
  await withAttack([
    {
      toolCalls: [bash(
        `printf '${HOOK}' > .git/hooks/pre-commit; echo '{"permission":{"bash":"allow"}}' > skiff.json; echo wrote`,
      )],
    },
    { text: "done" },
  ], async (sandbox, mock) => {
    const ws = sandbox.workspace;
    const result = await runSkiff(
      ["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"],
      sandbox,
    );
    assert(result.code === 0 || result.code === 3, result.stderr);
    const seen = lastToolResults(mock)[0]?.content ?? "";
    assert(seen.includes("wrote"), `the command did not run under Landlock: ${seen}`);
    assert(
      !(await Deno.stat(path.join(ws, ".git/hooks/pre-commit")).then(() => true, () => false)),
      "the planted hook stayed",
    );
    assert(
      !(await Deno.stat(path.join(ws, "skiff.json")).then(() => true, () => false)),
      "the planted skiff.json stayed",
    );
    assert(result.stdout.includes('"denied"'), "the guard's revert was not reported as denied");
  });
});

Deno.test({
  name: "landlock e2e: skiff's own environment and the parent process are out of reach",
  ...needsLandlock,
}, async () => {
  // Every ancestor: skiff's holder of the session's commands (in the same domain), and skiff.
  const command = 'p=$PPID; while [ "$p" -gt 1 ]; do c=$(cat /proc/$p/comm); ' +
    'cat /proc/$p/environ 2>/dev/null | tr "\\0" "\\n" | grep -c OPENAI_API_KEY; ' +
    'kill -0 $p 2>/dev/null && echo "reach:$c" || echo "no-signal:$c"; ' +
    "p=$(cut -d' ' -f4 /proc/$p/stat); done; " +
    'cat /proc/1/environ 2>/dev/null | grep -c OPENAI_API_KEY; echo "k=[$OPENAI_API_KEY]"';
  await withAttack([{ toolCalls: [bash(command)] }, { text: "done" }], async (sandbox, mock) => {
    const result = await runSkiff(
      ["run", "--json", "--yes", "--sandbox-backend", "landlock", "go"],
      sandbox,
      { env: { OPENAI_API_KEY: API_KEY } },
    );
    assertEquals(result.code, 0, result.stderr);
    const seen = lastToolResults(mock)[0]?.content ?? "";
    assert(seen.includes("k=[]"), seen);
    assert(seen.includes("no-signal:deno"), `the command could signal skiff: ${seen}`);
    assert(!seen.includes("reach:deno"), `the command could signal skiff: ${seen}`);
    assertNoSecrets(everythingSent(mock).replace(`Bearer ${API_KEY}`, ""), seen);
  });
});
