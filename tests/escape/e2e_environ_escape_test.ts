/**
 * A `full-access` command (no sandbox: same user, no Landlock, no pid
 * namespace) reads skiff's `/proc/<pid>/environ`, the environment block
 * skiff started with. skiff overwrites its credentials there at start
 * (src/sandbox/environ_scrub.ts) and still sends the key to its provider.
 * Control: the same read of a process that was started with the key and
 * not scrubbed shows it. What stays (the key in skiff's memory, readable
 * where ptrace is allowed) is in docs/security.md.
 */
import { assert } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { API_KEY, bash, everythingSent, lastToolResults, withAttack } from "./e2e_support.ts";

/** Every ancestor's environ, searched for the key: how many carried it. */
const READ_ANCESTORS = 'p=$PPID; n=0; while [ "$p" -gt 1 ]; do ' +
  `grep -q 'OPENAI_API_KEY=sk-' /proc/$p/environ 2>/dev/null && n=$((n+1)); ` +
  "p=$(cut -d' ' -f4 /proc/$p/stat); done; echo \"carriers=$n\"";

Deno.test(
  "full-access e2e: skiff's /proc/<pid>/environ no longer shows the API key " +
    "(control: an unscrubbed process shows it)",
  async () => {
    await withAttack(
      [{ toolCalls: [bash(READ_ANCESTORS)] }, { text: "done" }],
      async (sandbox, mock) => {
        const result = await runSkiff(
          ["run", "--json", "--yes", "--sandbox", "full-access", "go"],
          sandbox,
          { env: { OPENAI_API_KEY: API_KEY } },
        );
        assert(result.code === 0, result.stderr);
        const seen = lastToolResults(mock)[0]?.content ?? "";
        assert(seen.includes("carriers=0"), `the key was read from skiff's environ: ${seen}`);
        assert(
          mock.headers.every((headers) => headers.authorization === `Bearer ${API_KEY}`),
          "the provider lost the key",
        );
        assert(!everythingSent(mock).includes(API_KEY), "the key reached the model");
      },
    );
    // Control: the same read, of a process started with the key that nothing scrubbed.
    const holder = new Deno.Command("sleep", {
      args: ["30"],
      env: { OPENAI_API_KEY: API_KEY },
      stdout: "null",
    }).spawn();
    try {
      const read = await new Deno.Command("grep", {
        args: ["-c", API_KEY, `/proc/${holder.pid}/environ`],
        stdout: "piped",
      }).output();
      assert(read.success, "control: the key could not be read from an unscrubbed process");
    } finally {
      holder.kill("SIGKILL");
      await holder.status;
    }
  },
);
