/**
 * Which server checks which file, how the config changes the table, which
 * errors count as new, and a server the rules do not allow.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { serverFor, serverTable } from "../../src/lsp/servers.ts";
import { newErrors, SessionDiagnostics } from "../../src/lsp/diagnostics.ts";
import type { Diagnostic } from "vscode-languageserver-protocol";

Deno.test("known servers by extension; config switches one off, changes one, adds one", () => {
  const known = serverTable();
  assertEquals(serverFor(known, "/w/src/app.tsx")?.name, "typescript");
  assertEquals(serverFor(known, "/w/tool.py")?.name, "python");
  assertEquals(serverFor(known, "/w/main.go")?.name, "go");
  assertEquals(serverFor(known, "/w/README.md"), undefined);
  const table = serverTable({
    python: { enabled: false },
    typescript: { command: ["deno", "lsp"] },
    lua: { command: ["lua-language-server"], extensions: [".lua"] },
    incomplete: { extensions: [".x"] },
  });
  assertEquals(serverFor(table, "/w/tool.py"), undefined);
  assertEquals(serverFor(table, "/w/app.ts")?.command, ["deno", "lsp"]);
  assertEquals(serverFor(table, "/w/init.lua")?.name, "lua");
  assertEquals(serverFor(table, "/w/a.x"), undefined);
});

function error(message: string, line: number, severity = 1): Diagnostic {
  return {
    message,
    severity: severity as Diagnostic["severity"],
    code: 2322,
    range: { start: { line, character: 0 }, end: { line, character: 1 } },
  };
}

Deno.test("new errors: an old one that moved lines is not new, a second of the same is, warnings never", () => {
  const before = [error("bad type", 3), error("unused", 1, 2)];
  const after = [error("bad type", 5), error("bad type", 9), error("unused", 2, 2)];
  assertEquals(newErrors(before, after).map((found) => found.range.start.line), [9]);
  assertEquals(newErrors(after, before), []);
});

Deno.test("a server the lsp rule denies is not started, and that is said once", async () => {
  let prepared = 0;
  const diagnostics = new SessionDiagnostics({
    workspace: "/nowhere",
    prepare: () => {
      prepared++;
      return Promise.reject(new Error("never called"));
    },
    verdict: (name) => name === "typescript" ? "deny" : "allow",
  });
  const file = { real: "/nowhere/a.ts", display: "a.ts", before: "", after: "let a = 1;\n" };
  const first = await diagnostics.diagnose([file]);
  assertEquals(first?.notes.length, 1);
  assertStringIncludes(first!.notes[0], "lsp(typescript) says deny");
  assertEquals((await diagnostics.diagnose([file]))?.notes, []);
  assertEquals(prepared, 0);
  assertEquals(await diagnostics.diagnose([{ ...file, real: "/nowhere/notes.txt" }]), undefined);
  await diagnostics.close();
});
