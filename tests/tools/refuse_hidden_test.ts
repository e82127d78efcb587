/**
 * `refuseHidden` asks for the session's spill folder only when a hidden entry
 * holds the path; its decisions are those of `hiddenHolder` with the spill
 * folder given: keys and other sessions refused, the session's own spilled
 * output and workspace files let through.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { refuseHidden } from "../../src/tools/tool_paths.ts";
import { hiddenHolder } from "../../src/sandbox/hidden.ts";
import { spillFolder } from "../../src/store/tool_output.ts";
import { ToolError } from "../../src/tools/tool.ts";

Deno.test("refuseHidden refuses what hiddenHolder names, and only that", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-refuse-hidden-" }));
  try {
    const dataDir = path.join(root, "data");
    const home = path.join(root, "home");
    const own = spillFolder(dataDir, "ses_own");
    await Deno.mkdir(own, { recursive: true });
    await Deno.mkdir(path.join(home, ".ssh"), { recursive: true });
    const hidden = [path.join(home, ".ssh"), dataDir];
    const ctx = { hidden, dataDir, sessionId: "ses_own" };
    const paths = [
      path.join(root, "work", "a.ts"),
      path.join(home, ".ssh", "id_rsa"),
      path.join(own, "call_1.txt"),
      path.join(spillFolder(dataDir, "ses_other"), "call_1.txt"),
      path.join(dataDir, "skiff.db"),
      path.join(home, ".sshx"),
    ];
    const refused = paths.map((real) => {
      try {
        refuseHidden(ctx, real, real);
        return null;
      } catch (error) {
        if (!(error instanceof ToolError)) throw error;
        assertEquals(error.code, "denied");
        return real;
      }
    });
    assertEquals(refused, [null, paths[1], null, paths[3], paths[4], null]);
    assertEquals(
      refused,
      paths.map((real) => hiddenHolder(hidden, real, own) === null ? null : real),
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
