/**
 * Hooks in the attended chat at a real terminal (tmux) against the scripted
 * model: a Notification hook gets Claude Code's JSON while an approval
 * question waits for the person (and none fires in a headless `skiff run`,
 * where nobody is asked); a Stop hook's block sends the chat's agent back to
 * work within the same prompt.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";
import { startMockServer } from "../support/mock_server.ts";
import {
  hasTmux,
  inChat,
  press,
  shows,
  type,
  typeLine,
  warnWithoutTmux,
} from "../support/chat_tmux.ts";
import { hookScript, writeJson } from "./_hook_support.ts";

warnWithoutTmux("hooks in the chat at a real terminal");

/** The Notification hook: what it was given, kept in the workspace. */
const NOTIFY = {
  hooks: {
    Notification: [{
      matcher: "permission_prompt",
      hooks: [{ type: "command", command: "cat > notified.json" }],
    }],
  },
};

/** What `take` finds in `file` once it finds something, polled for up to 20 s. */
async function fromFile<T>(file: string, take: (text: string) => T | undefined): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = take(await Deno.readTextFile(file).catch(() => ""));
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${file}: what the test waits for did not come`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The whole JSON a hook wrote with `cat > file`, once written. */
const readWhenThere = (file: string) =>
  fromFile(file, (text) => text.trim().endsWith("}") ? text : undefined);

Deno.test({
  name: "chat: a Notification hook gets the permission question's JSON before it is answered",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [
        { toolCalls: [{ name: "bash", arguments: { command: "echo asked-for" } }] },
        { text: "The command ran." },
      ],
      async (session, sandbox) => {
        await typeLine(session, "run the command");
        await shows(session, "$ echo asked-for");
        // The question is on the screen and not answered: the hook has run already.
        const notified = JSON.parse(
          await readWhenThere(path.join(sandbox.workspace, "notified.json")),
        );
        assertEquals(notified.hook_event_name, "Notification");
        assertEquals(notified.notification_type, "permission_prompt");
        assertEquals(notified.message, "skiff needs your permission to use bash");
        assertEquals(notified.cwd, sandbox.workspace);
        assert(
          typeof notified.session_id === "string" && notified.session_id.startsWith("ses_"),
          JSON.stringify(notified),
        );
        assertEquals(notified.transcript_path, "");
        await press(session, "y");
        await shows(session, "The command ran.");
      },
      {
        prefix: "skiff-notify",
        prepare: (sandbox) => writeJson(path.join(sandbox.configDir, "config.json"), NOTIFY),
      },
    );
  },
});

/** The idle notifications a hook appended, one JSON document per line. */
const noticesIn = (text: string): Record<string, unknown>[] =>
  text.split("\n").filter(Boolean).map((line) => JSON.parse(line));

/** The notices in `file` once there are `count` of them. */
const noticesWhenThere = (file: string, count: number) =>
  fromFile(file, (text) => noticesIn(text).length >= count ? noticesIn(text) : undefined);

/** The notices in `file` now. */
const idleNotices = async (file: string) =>
  noticesIn(await Deno.readTextFile(file).catch(() => ""));

Deno.test({
  name: "chat: an answered prompt left untouched gets one idle_prompt notification per wait",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [{ text: "First answer." }, { text: "Second answer." }],
      async (session, sandbox) => {
        const log = path.join(sandbox.workspace, "idle.log");
        await typeLine(session, "first");
        await shows(session, "First answer.");
        const [notice] = await noticesWhenThere(log, 1);
        assertEquals(notice.hook_event_name, "Notification");
        assertEquals(notice.notification_type, "idle_prompt");
        assertEquals(notice.message, "skiff is waiting for your input");
        assertEquals(notice.cwd, sandbox.workspace);
        // Once per wait: three more of its seconds pass and nothing more comes.
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        assertEquals((await idleNotices(log)).length, 1);
        // Typing starts a new wait only once the next answer is there.
        await typeLine(session, "second");
        await shows(session, "Second answer.");
        const notices = await noticesWhenThere(log, 2);
        assertEquals(notices.map((one) => one.notification_type), ["idle_prompt", "idle_prompt"]);
      },
      {
        prefix: "skiff-idle",
        prepare: (sandbox) =>
          writeJson(path.join(sandbox.configDir, "config.json"), {
            idleNotificationSeconds: 1,
            hooks: {
              Notification: [{
                matcher: "idle_prompt",
                hooks: [{ type: "command", command: "cat >> idle.log; echo >> idle.log" }],
              }],
            },
          }),
      },
    );
  },
});

Deno.test({
  name: "chat: a person who starts typing before the wait ends gets no idle_prompt",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [{ text: "An answer." }],
      async (session, sandbox) => {
        await typeLine(session, "ask");
        await shows(session, "An answer.");
        await type(session, "x"); // within the 2 s wait: the person is there
        await new Promise((resolve) => setTimeout(resolve, 4_000));
        assertEquals(await idleNotices(path.join(sandbox.workspace, "idle.log")), []);
      },
      {
        prefix: "skiff-idle-typed",
        prepare: (sandbox) =>
          writeJson(path.join(sandbox.configDir, "config.json"), {
            idleNotificationSeconds: 2,
            hooks: {
              Notification: [{ hooks: [{ type: "command", command: "cat >> idle.log" }] }],
            },
          }),
      },
    );
  },
});

Deno.test("headless skiff run: nobody is asked, so no Notification hook runs", async () => {
  const mock = startMockServer([
    { toolCalls: [{ name: "bash", arguments: { command: "echo asked-for" } }] },
    { text: "It was refused." },
  ]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    await writeJson(path.join(sandbox.configDir, "config.json"), NOTIFY);
    const run = await runSkiff(["run", "run the command"], sandbox);
    // The call needed an approval nobody could give: refused, exit 3.
    assertEquals(run.code, 3, run.stderr);
    const there = await Deno.stat(path.join(sandbox.workspace, "notified.json")).then(
      () => true,
      () => false,
    );
    assertEquals(there, false, "a Notification hook ran with nobody to notify");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test({
  name: "chat: a Stop hook's block sends the agent back to work within the same prompt",
  ignore: !hasTmux,
  async fn() {
    await inChat(
      [
        { text: "Finished, I think." },
        { text: "Now it is really finished." },
      ],
      async (session, sandbox, mock) => {
        await typeLine(session, "do the work");
        const screen = await shows(session, "Now it is really finished.");
        assertStringIncludes(screen, "a Stop hook sent the agent back to work");
        assertEquals(mock.requests.length, 2);
        const messages = JSON.stringify(mock.requests[1].messages);
        assertStringIncludes(messages, "Stop hook feedback:\\nsay it again");
        // The second Stop runs after the answer is shown.
        const log = path.join(sandbox.workspace, "stops.log");
        const deadline = Date.now() + 20_000;
        let lines: string[] = [];
        while (lines.length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          lines = (await Deno.readTextFile(log)).trim().split("\n");
        }
        assertEquals(lines, ["false", "true"]);
      },
      {
        prefix: "skiff-stop",
        prepare: async (sandbox) => {
          // Blocks the first stop of a prompt only: it lets a continuation end.
          const stop = await hookScript(
            sandbox,
            "stop.sh",
            `active=$(jq -r .stop_hook_active)\necho "$active" >> stops.log\n` +
              `if [ "$active" = false ]; then echo "say it again" >&2; exit 2; fi`,
          );
          await writeJson(path.join(sandbox.configDir, "config.json"), {
            hooks: { Stop: [{ hooks: [{ type: "command", command: stop }] }] },
          });
        },
      },
    );
  },
});
