/**
 * `skiff run` in a real terminal for the escape suite: tmux runs it, the
 * test reads the screen and answers with keystrokes. Where tmux is absent
 * the tests that need it are skipped with a loud warning.
 */
import { MAIN, type Sandbox } from "../support/cli.ts";

export const hasTmux = await new Deno.Command("tmux", {
  args: ["-V"],
  stdout: "null",
  stderr: "null",
}).output().then((output) => output.success, () => false);
if (!hasTmux) {
  console.warn("!!! SKIPPED the escape tests in a real terminal: tmux is not installed !!!");
}

async function tmux(...args: string[]): Promise<string> {
  const output = await new Deno.Command("tmux", { args, stdout: "piped", stderr: "piped" })
    .output();
  return new TextDecoder().decode(output.stdout);
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

export interface Terminal {
  /** The screen once it shows `text` (throws with the screen after `timeoutMs`). */
  shows(text: string, timeoutMs?: number): Promise<string>;
  keys(...keys: string[]): Promise<void>;
}

/** `skiff <args>` in a 150×50 tmux window; the line `SKIFF_EXIT=<code>` follows its end. */
export async function inTmux(
  args: string[],
  sandbox: Sandbox,
  work: (terminal: Terminal) => Promise<void>,
): Promise<void> {
  const session = `skiff-esc-${crypto.randomUUID().slice(0, 8)}`;
  const env = Object.entries(sandbox.env).map(([name, value]) => `${name}=${quote(value)}`)
    .join(" ");
  const command = `cd ${quote(sandbox.workspace)} && env -i ${env} TERM=xterm ${
    quote(Deno.execPath())
  } run -A --unstable-worker-options --no-prompt ${quote(MAIN)} ${
    args.map(quote).join(" ")
  }; echo SKIFF_EXIT=$?; sleep 60`;
  const terminal: Terminal = {
    async shows(text, timeoutMs = 40_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const screen = await tmux("capture-pane", "-t", session, "-p", "-S", "-200");
        if (screen.includes(text)) return screen;
        if (Date.now() > deadline) throw new Error(`"${text}" never appeared; screen:\n${screen}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async keys(...keys) {
      for (const key of keys) await tmux("send-keys", "-t", session, key);
    },
  };
  try {
    await tmux("new-session", "-d", "-s", session, "-x", "150", "-y", "50", command);
    await work(terminal);
  } finally {
    await tmux("kill-session", "-t", session);
  }
}
