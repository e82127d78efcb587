/**
 * A change whose check found the server busy is not forgotten: the next
 * change to the same file is checked against the text before it, so the
 * error the busy change made is reported then. Control: when the first
 * check was answered, its error is not reported again.
 */
import { assertEquals } from "../support/assert.ts";
import { BAD_WORDS, reportsOfChanges } from "./_servers.ts";
import type { DiagnosticsReport } from "../../src/lsp/types.ts";

// Keeps each file's text; one error per line saying "bad"; answers the diagnostic request,
// never before `delay` ms after it started (its argument): a server still loading its project.
const LOADING_SERVER = `
const delay = Number(process.argv[2]);
const started = Date.now();
${BAD_WORDS}
function handle(message) {
  if (message.method === "initialize") {
    return send({ id: message.id, result: { capabilities: { diagnosticProvider: {} } } });
  }
  if (message.method === "textDocument/didOpen" || message.method === "textDocument/didChange") {
    const document = message.params.textDocument;
    texts.set(document.uri, message.params.contentChanges?.[0].text ?? document.text);
    return;
  }
  if (message.method === "textDocument/diagnostic") {
    const items = errorsOf(texts.get(message.params.textDocument.uri) ?? "");
    const answer = () => send({ id: message.id, result: { kind: "full", items } });
    return setTimeout(answer, Math.max(0, started + delay - Date.now()));
  }
  if (message.id !== undefined && message.method) send({ id: message.id, result: null });
}
`;

/** The reports of a change adding a bad line, then of a harmless change after it. */
function badThenHarmless(loadingMs: number): Promise<DiagnosticsReport[]> {
  // The first check gives up long before a loading server answers; the next one waits it out.
  return reportsOfChanges("loading", LOADING_SERVER, [String(loadingMs)], {
    firstWaitMs: 300,
    waitMs: 30_000,
  }, [["good\n", "good\nbad\n"], ["good\nbad\n", "good\nbad\nfine\n"]]);
}

const BAD_LINE = {
  path: "notes.txt",
  line: 2,
  column: 1,
  message: "a bad word",
  code: "bad-word",
  source: "scripted",
};

Deno.test("an error made while the server was busy is reported with the file's next change", async () => {
  const [bad, harmless] = await badThenHarmless(2_000);
  assertEquals(bad, { errors: [], busy: ["loading"], notes: [] });
  assertEquals(harmless, { errors: [BAD_LINE], busy: [], notes: [] });
});

Deno.test("control: an error already reported is not reported again with the next change", async () => {
  const [bad, harmless] = await badThenHarmless(0);
  assertEquals(bad.errors, [BAD_LINE]);
  assertEquals(harmless, { errors: [], busy: [], notes: [] });
});
