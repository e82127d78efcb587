/**
 * The mock server itself, for the people who script it: non-streamed
 * answers, the model list, a visible failure when the script runs out, and
 * the standalone mode other processes start.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { startMockServer } from "../support/mock_server.ts";

const post = (url: string, body: unknown) =>
  fetch(`${url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

Deno.test("answers non-streamed requests with one completion object", async () => {
  const mock = startMockServer([
    { text: "plain" },
    { toolCalls: [{ name: "read", arguments: { path: "a.ts" }, id: "c1" }] },
  ]);
  try {
    const first = await (await post(mock.url, { model: "m", messages: [] })).json();
    assertEquals(first.object, "chat.completion");
    assertEquals(first.choices[0].message.content, "plain");
    assertEquals(first.choices[0].finish_reason, "stop");
    assert(first.usage.total_tokens > 0);
    const second = await (await post(mock.url, { model: "m", messages: [] })).json();
    assertEquals(second.choices[0].finish_reason, "tool_calls");
    assertEquals(second.choices[0].message.tool_calls, [
      { id: "c1", type: "function", function: { name: "read", arguments: '{"path":"a.ts"}' } },
    ]);
    assertEquals(mock.requests.length, 2);
  } finally {
    await mock.close();
  }
});

Deno.test("lists a model, and fails loudly once the script is used up", async () => {
  const mock = startMockServer([]);
  try {
    const models = await (await fetch(`${mock.url}/models`)).json();
    assertEquals(models.data[0].id, "mock-model");
    const response = await post(mock.url, { model: "m", messages: [] });
    assertEquals(response.status, 500);
    const body = await response.json();
    assert(body.error.message.includes("mock script exhausted"), body.error.message);
  } finally {
    await mock.close();
  }
});

Deno.test("runs standalone: prints its URL first, records requests, serves until killed", async () => {
  const dir = await Deno.makeTempDir();
  const script = `${dir}/script.json`;
  const record = `${dir}/requests.jsonl`;
  await Deno.writeTextFile(script, JSON.stringify([{ text: "from another process" }]));
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      new URL("../support/mock_server.ts", import.meta.url).pathname,
      script,
      "--record",
      record,
    ],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let printed = "";
    while (!printed.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      printed += value;
    }
    const url = printed.split("\n")[0];
    assert(/^http:\/\/127\.0\.0\.1:\d+\/v1$/.test(url), `first line was ${JSON.stringify(url)}`);
    const answer =
      await (await post(url, { model: "m", messages: [{ role: "user", content: "hi" }] }))
        .json();
    assertEquals(answer.choices[0].message.content, "from another process");
    const recorded = (await Deno.readTextFile(record)).trim().split("\n").map((line) =>
      JSON.parse(line)
    );
    assertEquals(recorded, [{ model: "m", messages: [{ role: "user", content: "hi" }] }]);
    await reader.cancel();
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await Deno.remove(dir, { recursive: true });
  }
});
