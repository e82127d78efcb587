/**
 * Diagnostics had by asking (LSP's `textDocument/diagnostic`) from a server
 * that offers it: a scripted server that never publishes still gets its
 * error into the edit's report (control: the same server not offering the
 * request leaves the edit busy), and one whose answer fails is waited for
 * as a publishing server.
 */
import { assertEquals } from "../support/assert.ts";
import { BAD_WORDS, reportsOfChanges } from "./_servers.ts";
import type { DiagnosticsReport } from "../../src/lsp/types.ts";

// A server that keeps each file's text and finds one error on each line saying "bad". Its
// argument: "ask" answers the diagnostic request and never publishes; "fail" fails the request and
// publishes, with the version, after each change; "none" offers no request and never publishes.
const SCRIPTED_SERVER = `
const mode = process.argv[2];
${BAD_WORDS}
function handle(message) {
  if (message.method === "initialize") {
    const capabilities = mode === "none" ? {} : { diagnosticProvider: { interFileDependencies: false } };
    return send({ id: message.id, result: { capabilities } });
  }
  if (message.method === "textDocument/didOpen" || message.method === "textDocument/didChange") {
    const document = message.params.textDocument;
    const text = message.params.contentChanges?.[0].text ?? document.text;
    texts.set(document.uri, text);
    if (mode === "fail") {
      send({ method: "textDocument/publishDiagnostics",
        params: { uri: document.uri, version: document.version, diagnostics: errorsOf(text) } });
    }
    return;
  }
  if (message.method === "textDocument/diagnostic") {
    if (mode === "fail") return send({ id: message.id, error: { code: -32603, message: "no" } });
    const text = texts.get(message.params.textDocument.uri) ?? "";
    return send({ id: message.id, result: { kind: "full", items: errorsOf(text) } });
  }
  if (message.id !== undefined && message.method) send({ id: message.id, result: null });
}
`;

/** The reports of an edit adding a bad line, then of the one fixing it, with the server in `mode`. */
function breakAndFix(mode: "ask" | "fail" | "none"): Promise<DiagnosticsReport[]> {
  // Long enough for a busy machine; the silent control waits it out once per edit.
  const waits = mode === "none"
    ? { firstWaitMs: 1000, waitMs: 500 }
    : { firstWaitMs: 30_000, waitMs: 30_000 };
  return reportsOfChanges("scripted", SCRIPTED_SERVER, [mode], waits, [
    ["good\nbad old\n", "good\nbad old\nbad\n"],
    ["good\nbad old\nbad\n", "good\nbad old\n"],
  ]);
}

const NEW_ERROR = {
  path: "notes.txt",
  line: 3,
  column: 1,
  message: "a bad word",
  code: "bad-word",
  source: "scripted",
};

Deno.test("a server that is asked and never publishes: the new error comes, the fix clears it", async () => {
  const [broke, fixed] = await breakAndFix("ask");
  assertEquals(broke, { errors: [NEW_ERROR], busy: [], notes: [] });
  assertEquals(fixed, { errors: [], busy: [], notes: [] });
});

Deno.test("control: the same server not offering the request leaves the edit busy", async () => {
  const [broke] = await breakAndFix("none");
  assertEquals(broke, { errors: [], busy: ["scripted"], notes: [] });
});

Deno.test("a server whose answer fails is waited for as one that publishes", async () => {
  const [broke, fixed] = await breakAndFix("fail");
  assertEquals(broke, { errors: [NEW_ERROR], busy: [], notes: [] });
  assertEquals(fixed, { errors: [], busy: [], notes: [] });
});
