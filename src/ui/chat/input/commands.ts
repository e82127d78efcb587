/**
 * Slash commands of the chat: a small registry. Each command has a name, a
 * one-line description for `/help` and completion, and a handler that gets
 * the text after its name and the session's controls. Add a command by
 * calling `registry.add(…)` where the chat is built (src/cli/chat/chat.ts). The
 * controls type is a parameter, so the front end can hand its commands more
 * than the few every chat has.
 */

/**
 * What the chat sends: typed text, or a prompt built once `shown` is on
 * screen; `stopped` turns true when the person stops the turn meanwhile.
 */
export type ChatMessage = string | {
  shown: string;
  build: (stopped: () => boolean) => Promise<string>;
};

/** What a command can do to the session it runs in. */
export interface ChatControls {
  /** Write lines into the conversation (the terminal's scrollback). */
  print(text: string): void;
  /** Ask a yes/no question inline; resolves true on "y". */
  confirm(question: string): Promise<boolean>;
  /** Start a new session (the next prompt opens it). */
  newSession(): Promise<void>;
  /** End the chat. */
  exit(): void;
  /**
   * Send text to the model as if typed (its `@path`s attached). Or a prompt
   * built once `shown` is on screen (a custom command whose lines run first):
   * `build` gives it finished, and no `@path` of it is read again.
   */
  send(message: ChatMessage): Promise<void>;
  /** The id of the session open now, if one is. */
  sessionId(): string | undefined;
}

export interface SlashCommand<C extends ChatControls = ChatControls> {
  name: string;
  description: string;
  /** What the command takes, shown by /help: `[name]`, `<issue>`. */
  argumentHint?: string;
  /** Where a custom command came from (`.claude/commands`); none for a built-in. */
  source?: string;
  run(args: string, controls: C): Promise<void> | void;
}

export class CommandRegistry<C extends ChatControls = ChatControls> {
  readonly #commands = new Map<string, SlashCommand<C>>();

  add(command: SlashCommand<C>): this {
    this.#commands.set(command.name, command);
    return this;
  }

  get(name: string): SlashCommand<C> | undefined {
    return this.#commands.get(name);
  }

  list(): SlashCommand<C>[] {
    return [...this.#commands.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Names starting with `prefix` (without the slash). */
  complete(prefix: string): string[] {
    return this.list().map((command) => command.name).filter((name) => name.startsWith(prefix));
  }

  /** Splits "/name args"; undefined when `text` is not a slash command. */
  static parse(text: string): { name: string; args: string } | undefined {
    // `:` joins a custom command's folder and name (`/git:commit`).
    const match = /^\/([a-z][\w:.-]*)(?:\s+([\s\S]*))?$/i.exec(text.trim());
    return match ? { name: match[1].toLowerCase(), args: match[2]?.trim() ?? "" } : undefined;
  }
}

/** /help, listing every registered command. */
export function helpCommand<C extends ChatControls>(
  registry: CommandRegistry<C>,
): SlashCommand<C> {
  return {
    name: "help",
    description: "list commands and keys",
    run(_args, controls) {
      const usage = (command: SlashCommand<C>) =>
        command.argumentHint ? `/${command.name} ${command.argumentHint}` : `/${command.name}`;
      const builtIn = registry.list().filter((command) => !command.source);
      const custom = registry.list().filter((command) => command.source);
      const width = Math.max(...registry.list().map((command) => usage(command).length));
      const line = (command: SlashCommand<C>) =>
        `  ${usage(command).padEnd(width)}  ${command.description}${
          command.source ? `  (${command.source})` : ""
        }`;
      controls.print(
        [
          "Commands:",
          ...builtIn.map(line),
          ...(custom.length ? ["Custom commands:", ...custom.map(line)] : []),
          "Keys: Enter sends · Alt+Enter or a trailing \\ adds a line · ↑/↓ history · Ctrl-R search",
          "      @path inlines a file (Tab completes) · !command runs a shell command",
          "      Ctrl-O shows a collapsed paste, else the last tool call, whole",
          "      Ctrl-T shows or collapses reasoning",
          "      Esc or Ctrl-C stops the agent · Ctrl-D or Ctrl-C twice exits",
        ].join("\n"),
      );
    },
  };
}
