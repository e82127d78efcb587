/**
 * End-to-end: the CI token `actions/checkout` leaves in `.git/config`
 * (issue 29, item 10). The model reads the file with the read tool and with
 * commands; the token must reach no request to the model, and nothing skiff
 * writes for a CI job (the answer file, the summary, the `--json` events)
 * may carry a token-shaped secret. The control puts the same text in a file
 * named otherwise: it flows, so the assertions can see a leak.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { probeSandboxes } from "../../src/sandbox/choose.ts";
import {
  assertUnchanged,
  bash,
  everythingSent,
  guarded,
  lastToolResults,
  needsBwrap,
  read,
  runEvents,
  withAttack,
} from "./e2e_support.ts";

/** The Actions token as checkout stores it: base64 of `x-access-token:<token>`. */
const TOKEN = "ghs_" + "e2eT0kenFromCheckout0123456789abcdef";
const BASIC = btoa(`x-access-token:${TOKEN}`);
/** A second token, in a remote's URL. */
const URL_TOKEN = "ghp_" + "urlT0kenInTheRemote0123456789abcdefgh";

const CREDENTIAL_CONFIG = `[http "https://github.com/"]\n` +
  `\textraheader = AUTHORIZATION: basic ${BASIC}\n` +
  `[remote "origin"]\n\turl = https://x-access-token:${URL_TOKEN}@github.com/o/r.git\n` +
  `\tfetch = +refs/heads/*:refs/remotes/origin/*\n`;

function leaks(text: string): string[] {
  return [TOKEN, BASIC, URL_TOKEN].filter((secret) => text.includes(secret));
}

Deno.test({
  name:
    "e2e: the CI token in .git/config reaches neither the model nor the answer, summary or events",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [read(".git/config")] },
      { toolCalls: [{ name: "grep", arguments: { pattern: "extraheader", path: ".git" } }] },
      {
        toolCalls: [
          bash("cat .git/config; git config --list; git remote -v; git log --oneline; git status"),
        ],
      },
      // The attacker model writes a token it got elsewhere into its answer.
      { text: `Reviewed. The token is ${TOKEN} and the remote https://x:${URL_TOKEN}@github.com` },
    ], async (sandbox, mock) => {
      await Deno.writeTextFile(
        path.join(sandbox.workspace, ".git", "config"),
        CREDENTIAL_CONFIG,
        { append: true },
      );
      const out = await Deno.makeTempDir();
      const answer = path.join(out, "answer.md");
      const summary = path.join(out, "summary.md");
      const before = guarded(sandbox);
      const result = await runSkiff([
        "run",
        "--json",
        "--yes",
        "--output-last-message",
        answer,
        "--summary",
        summary,
        "review this",
      ], sandbox);
      const results = lastToolResults(mock);
      assertEquals(results.length, 3, result.stderr);
      // The file tools refuse the file, saying why and what to use instead.
      assertStringIncludes(results[0].content, "git credential");
      assertStringIncludes(results[1].content, "git credential");
      // Commands see the config without the credential, and git still works.
      const shown = results[2].content;
      assertStringIncludes(shown, "extraheader *** (hidden from the agent by skiff)");
      assertStringIncludes(shown, "https://x-access-token:***@github.com/o/r.git");
      assertStringIncludes(shown, "init");
      assertStringIncludes(shown, "On branch main");
      assertEquals(leaks(everythingSent(mock)), [], "the token reached the model");
      const answerText = await Deno.readTextFile(answer);
      const summaryText = await Deno.readTextFile(summary);
      assertEquals(leaks(answerText), [], "the token reached the answer file");
      assertEquals(leaks(summaryText), [], "the token reached the summary");
      assertEquals(leaks(result.stdout), [], "the token reached the events");
      // Deltas are never split inside a word, so the pieces do not spell it either.
      const deltas = runEvents(result.stdout).events
        .filter((event) => event.type === "message.delta")
        .map((event) => String(event.text)).join("");
      assertEquals(leaks(deltas), [], "the token reached the events in pieces");
      assertStringIncludes(answerText, "ghs_***");
      // The user's file itself is untouched.
      assertStringIncludes(
        await Deno.readTextFile(path.join(sandbox.workspace, ".git", "config")),
        BASIC,
      );
      assertUnchanged(before, guarded(sandbox));
      await Deno.remove(out, { recursive: true });
    });
  },
});

Deno.test({
  name: "e2e: a nested repository's credential stays hidden from commands, and git there works",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      {
        toolCalls: [bash(
          "cat vendor/lib/.git/config; git -C vendor/lib log --oneline; git config --list",
        )],
      },
      { text: "done" },
    ], async (sandbox, mock) => {
      const nested = path.join(sandbox.workspace, "vendor", "lib");
      await Deno.mkdir(nested, { recursive: true });
      for (
        const args of [
          ["init", "-q", "-b", "main"],
          [
            "-c",
            "user.email=t@t",
            "-c",
            "user.name=t",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "vendored",
          ],
        ]
      ) {
        const done = await new Deno.Command("git", { args, cwd: nested }).output();
        assert(done.success, "git");
      }
      await Deno.writeTextFile(path.join(nested, ".git", "config"), CREDENTIAL_CONFIG, {
        append: true,
      });
      const result = await runSkiff(["run", "--json", "--yes", "look"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const shown = lastToolResults(mock)[0].content;
      assertStringIncludes(shown, "vendored");
      assertEquals(
        leaks(everythingSent(mock)),
        [],
        "the nested repository's token reached the model",
      );
    });
  },
});

Deno.test({
  name: "e2e: a token in a file the config includes (newer checkouts) stays hidden, and git works",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      {
        toolCalls: [
          bash("git log --oneline; git config --list; cat ../outside/git-credentials.config"),
        ],
      },
      { toolCalls: [read("../outside/git-credentials.config")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const included = path.join(sandbox.outside, "git-credentials.config");
      await Deno.writeTextFile(
        included,
        `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${BASIC}\n`,
      );
      await Deno.writeTextFile(
        path.join(sandbox.workspace, ".git", "config"),
        `[includeIf "gitdir:${path.join(sandbox.workspace, ".git")}/"]\n\tpath = ${included}\n`,
        { append: true },
      );
      const result = await runSkiff(["run", "--json", "--yes", "look"], sandbox);
      const [shown, read] = lastToolResults(mock);
      assertStringIncludes(shown.content, "init");
      assertStringIncludes(shown.content, "extraheader *** (hidden from the agent by skiff)");
      assertStringIncludes(read.content, "hidden from the agent");
      assertEquals(leaks(everythingSent(mock)), [], result.stdout);
    });
  },
});

Deno.test({
  name: "e2e control: the same text in a file named otherwise flows to the model",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [read("notes/config")] },
      { toolCalls: [bash("cat notes/config")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      await Deno.mkdir(path.join(sandbox.workspace, "notes"));
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes", "config"), CREDENTIAL_CONFIG);
      const result = await runSkiff(["run", "--json", "--yes", "read it"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const sent = everythingSent(mock);
      assert(sent.includes(BASIC) && sent.includes(URL_TOKEN), "the control should leak");
      // The events still carry no token: redaction is by shape, not by file name.
      assertEquals(leaks(result.stdout), []);
    });
  },
});

const sandboxes = await probeSandboxes();
if (!sandboxes.landlock) {
  console.warn(
    `\n!!! SECRETS E2E: Landlock does not work here (${sandboxes.reasons?.landlock}); ` +
      "its test is SKIPPED. !!!\n",
  );
}

Deno.test({
  name: "e2e landlock: the file tools refuse the token and the run warns that commands can read it",
  ignore: !sandboxes.landlock,
  fn: async () => {
    await withAttack([
      { toolCalls: [read(".git/config")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      await Deno.writeTextFile(
        path.join(sandbox.workspace, ".git", "config"),
        CREDENTIAL_CONFIG,
        { append: true },
      );
      const result = await runSkiff(
        ["run", "--json", "--yes", "--sandbox-backend", "landlock", "review"],
        sandbox,
      );
      assertStringIncludes(lastToolResults(mock)[0].content, "git credential");
      assertEquals(leaks(everythingSent(mock)), []);
      const warning = runEvents(result.stdout).warnings.find((text) =>
        text.includes("holds a git credential")
      );
      assert(warning, `no warning about the credential: ${result.stdout}`);
      assertStringIncludes(warning, "commands can read it");
      assertStringIncludes(warning, "persist-credentials: false");
    });
  },
});

// Item 22: a workspace file that is a hard link to a file outside (a package
// manager's store). The file tools replace the workspace name; a command
// writes through it (the documented residual, shown as the control).
Deno.test({
  name: "e2e hard link: write, edit and apply_patch leave a hard link's outside name as it was",
  ...needsBwrap,
  fn: async () => {
    const patch =
      "*** Begin Patch\n*** Update File: node_modules/pkg/c.js\n@@\n-store c\n+changed c\n" +
      "*** End Patch";
    await withAttack([
      {
        toolCalls: [
          read("node_modules/pkg/a.js"),
          read("node_modules/pkg/b.js"),
          read("node_modules/pkg/c.js"),
        ],
      },
      {
        toolCalls: [{
          name: "write",
          arguments: { file_path: "node_modules/pkg/a.js", content: "changed a\n" },
        }],
      },
      {
        toolCalls: [{
          name: "edit",
          arguments: {
            file_path: "node_modules/pkg/b.js",
            old_string: "store b",
            new_string: "changed b",
          },
        }],
      },
      { toolCalls: [{ name: "apply_patch", arguments: { patch } }] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const store = path.join(sandbox.outside, "store");
      const pkg = path.join(sandbox.workspace, "node_modules", "pkg");
      await Deno.mkdir(store);
      await Deno.mkdir(pkg, { recursive: true });
      for (const name of ["a", "b", "c"]) {
        await Deno.writeTextFile(path.join(store, `${name}.js`), `store ${name}\n`);
        await Deno.link(path.join(store, `${name}.js`), path.join(pkg, `${name}.js`));
      }
      const result = await runSkiff(["run", "--json", "--yes", "edit the package"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const results = lastToolResults(mock);
      assertEquals(results.length, 6, result.stdout);
      for (const message of results) {
        assert(!/denied|error/i.test(message.content), message.content);
      }
      for (const name of ["a", "b", "c"]) {
        assertEquals(await Deno.readTextFile(path.join(pkg, `${name}.js`)), `changed ${name}\n`);
        assertEquals(await Deno.readTextFile(path.join(store, `${name}.js`)), `store ${name}\n`);
        assertEquals((await Deno.stat(path.join(store, `${name}.js`))).nlink, 1);
      }
    });
  },
});

Deno.test({
  name:
    "e2e hard link control: a sandboxed command writes through an existing link, and cannot make a new one",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      {
        toolCalls: [bash(
          "printf 'planted\\n' > node_modules/pkg/index.js; " +
            "ln ../outside/secret.txt stolen && echo LINKED || echo NO-NEW-LINK",
        )],
      },
      { text: "done" },
    ], async (sandbox, mock) => {
      const store = path.join(sandbox.outside, "store.js");
      const pkg = path.join(sandbox.workspace, "node_modules", "pkg");
      await Deno.mkdir(pkg, { recursive: true });
      await Deno.writeTextFile(store, "store\n");
      await Deno.link(store, path.join(pkg, "index.js"));
      const result = await runSkiff(
        ["run", "--json", "--yes", "--allow", "bash(*)", "go"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      // The residual docs/security.md states: the outside name changed with it.
      assertEquals(await Deno.readTextFile(store), "planted\n");
      assertStringIncludes(lastToolResults(mock)[0].content, "NO-NEW-LINK");
    });
  },
});

Deno.test({
  name: "e2e landlock hard link: a command cannot link a file from outside into the workspace",
  ignore: !sandboxes.landlock,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash("ln ../outside/secret.txt stolen && echo LINKED || echo NO-NEW-LINK")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--yes", "--allow", "bash(*)", "--sandbox-backend", "landlock", "go"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(lastToolResults(mock)[0].content, "NO-NEW-LINK");
    });
  },
});
