/**
 * What a newcomer meets in the chat (tmux, against the scripted mock): a
 * model name the endpoint did not list is refused with close names, a 404
 * for an unknown model points at /model, a folder or a missing file after
 * `@` gets a note instead of going out silently as text, and an assumed
 * context window shows `ctx ?` with how to set it.
 */
import * as path from "node:path";
import { assert, assertStringIncludes } from "../support/assert.ts";
import {
  hasTmux,
  inChat,
  shows,
  typeLine,
  waitFor,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";

warnWithoutTmux("the chat's /model, @mention and ctx notes");

const MODELS = ["mock-model", "mock-model-large", "qwen2.5-coder:32b"];

Deno.test({
  name:
    "chat /model: a name the listed endpoint does not serve is refused with close names; a listed one switches",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "On the large one." }], async (session, _sandbox, mock) => {
      await typeLine(session, "/model");
      await shows(session, "qwen2.5-coder:32b");
      await typeLine(session, "/model mock-modle-large");
      const refused = await shows(session, 'No model "mock-modle-large" at this endpoint');
      assertStringIncludes(refused, "Did you mean mock-model-large?");
      assertStringIncludes(refused, "Still on mock-model.");
      await typeLine(session, "/model mock-model-large");
      await shows(session, "Model: mock-model-large from the next prompt.");
      await typeLine(session, "hello");
      await shows(session, "On the large one.");
      assert(mock.requests[0]?.model === "mock-model-large", "the listed model was not used");
    }, { mock: { models: MODELS } });
  },
});

Deno.test({
  name: "chat: a 404 for an unknown model says /model lists what the endpoint serves",
  ignore: !hasTmux,
  async fn() {
    const script = [{
      status: 404,
      body: {
        error: {
          message: "The model `mock-model` does not exist",
          type: "invalid_request_error",
          code: "model_not_found",
        },
      },
    }];
    await inChat(script, async (session) => {
      await typeLine(session, "hello");
      const screen = await shows(session, "/model in the chat lists");
      assertStringIncludes(screen, "does not exist");
    });
  },
});

Deno.test({
  name:
    "chat @mention: a folder and a missing file get a note and go as typed; an assumed window shows ctx ? and how to set it",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Looked." }], async (session, _sandbox, mock) => {
      const start = await shows(session, "ctx ?");
      assertStringIncludes(start, 'models."mock-model".context');
      await typeLine(session, "look at @src and @missing.js");
      const screen = await shows(session, "Looked.");
      assertStringIncludes(screen, "@src is not attached: a folder");
      assertStringIncludes(screen, "@missing.js is not attached: no such file in the workspace");
      assertStringIncludes(
        JSON.stringify(mock.requests[0]?.messages),
        "look at @src and @missing.js",
      );
    }, {
      prepare: (sandbox) => Deno.mkdir(path.join(sandbox.workspace, "src")),
    });
  },
});

Deno.test({
  name: "chat: a window set in the config shows a percentage, with no ctx ? note",
  ignore: !hasTmux,
  async fn() {
    await inChat([], async (session) => {
      const screen = await waitFor(session, (text) => /ctx \d+%/.test(text), "ctx as a percentage");
      assert(!screen.includes("ctx ?"), `the configured window was called unknown:\n${screen}`);
    }, {
      prepare: (sandbox) =>
        Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify({ models: { "mock-model": { context: 32000 } } }),
        ),
    });
  },
});
