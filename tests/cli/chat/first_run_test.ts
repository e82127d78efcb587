import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { firstRunSetup, type SetupAnswers } from "../../../src/cli/chat/first_run.ts";
import { wrapWords } from "../../../src/ui/chat/width.ts";

/** A terminal that answers from a script and keeps what was written. */
function scripted(answers: (string | undefined)[]) {
  const written: string[] = [];
  const asked: string[] = [];
  return {
    written,
    asked,
    terminal: {
      write: (text: string) => written.push(text),
      ask: (question: string) => {
        asked.push(question);
        return Promise.resolve(answers.shift());
      },
    },
  };
}

const missing = {
  model: true,
  apiKey: false,
  baseURL: "http://127.0.0.1:9/v1",
  knownKey: "",
  globalFile: "/nonexistent/config.json",
};

Deno.test("first run: when the endpoint lists no models, the name typed is taken and saved", async () => {
  const { terminal, written, asked } = scripted(["", "my-model"]);
  const saved: SetupAnswers[] = [];
  const done = await firstRunSetup(missing, terminal, {
    fetch: () => Promise.reject(new TypeError("connection refused")),
    getEnv: () => undefined,
    save: (_file, answers) => Promise.resolve(void saved.push(answers)),
  });
  assertEquals(done, true);
  assertStringIncludes(written.join(""), "No model list: the model list could not be read");
  // An empty answer asks again; the endpoint was not asked for (it is set).
  assertEquals(asked, [
    "Model name (as the endpoint knows it): ",
    "Model name (as the endpoint knows it): ",
  ]);
  assertEquals(saved, [{ model: "my-model" }]);
});

Deno.test("first run: cancelled at the model question, nothing is saved", async () => {
  const { terminal } = scripted([undefined]);
  let saves = 0;
  const done = await firstRunSetup(missing, terminal, {
    fetch: () => Promise.reject(new TypeError("connection refused")),
    getEnv: () => undefined,
    save: () => Promise.resolve(void saves++),
  });
  assertEquals([done, saves], [false, 0]);
});

Deno.test("the setup's words wrap at spaces in a narrow terminal, never inside a word or a URL", () => {
  const text = "skiff is not set up yet: a few questions, then the chat opens.\n" +
    "Endpoint: Enter for https://api.openai.com/v1, or a local server's URL: ";
  const rows = wrapWords(text, 30).split("\n");
  for (const row of rows) assertEquals(row.length <= 30 || !row.includes(" "), true, row);
  const words = text.split(/\s+/).filter(Boolean);
  assertEquals(rows.join(" ").split(/\s+/).filter(Boolean), words);
  assertStringIncludes(rows.join("\n"), "https://api.openai.com/v1,");
});
