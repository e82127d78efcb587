/**
 * `skiff run --summary <file.md>`: a run told in Markdown for a CI job's
 * page (GitHub's job summary, a GitLab artifact, a PR comment). It is built
 * from the same events the renderers draw: the answer, the files changed,
 * the last command run (usually the check), tokens and cost, denials and,
 * when the run failed, where the failure belongs.
 */
import type { SkiffEvent, Usage } from "../../contracts/events.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";

interface FileChange {
  additions: number;
  deletions: number;
}

interface CommandRun {
  command: string;
  exitCode?: number;
  ok: boolean;
}

/** Collects what the summary needs as events go by; `markdown()` tells it. */
export class RunSummary {
  #model = "";
  #sessionId = "";
  #files = new Map<string, FileChange>();
  #inputs = new Map<string, unknown>();
  #lastCommand: CommandRun | undefined;
  #error: { code: string; message: string } | undefined;
  #end: Extract<SkiffEvent, { type: "session.completed" }> | undefined;

  observe(event: SkiffEvent): void {
    switch (event.type) {
      case "session.started":
        // A subagent's session starts inside this one; the run's own comes first.
        if (!this.#sessionId) {
          this.#sessionId = event.session_id;
          this.#model = event.model;
        }
        break;
      case "tool.started":
        this.#inputs.set(event.call_id, event.input);
        break;
      case "tool.completed":
        this.#toolCompleted(event);
        break;
      case "error":
        if (event.session_id === this.#sessionId) this.#error = event;
        break;
      case "session.completed":
        if (event.session_id === this.#sessionId) this.#end = event;
        break;
    }
  }

  #toolCompleted(event: Extract<SkiffEvent, { type: "tool.completed" }>): void {
    const input = (this.#inputs.get(event.call_id) ?? {}) as Record<string, unknown>;
    const metadata = event.metadata ?? {};
    if (event.tool === "bash" && typeof input.command === "string") {
      const exitCode = typeof metadata.exitCode === "number" ? metadata.exitCode : undefined;
      this.#lastCommand = { command: input.command, exitCode, ok: event.ok };
    }
    if (!event.ok) return;
    const count = (value: unknown) => typeof value === "number" ? value : 0;
    const change = (path: string, additions: number, deletions: number) => {
      const before = this.#files.get(path) ?? { additions: 0, deletions: 0 };
      this.#files.set(path, {
        additions: before.additions + additions,
        deletions: before.deletions + deletions,
      });
    };
    const written = ["write", "edit", "file_delete"].includes(event.tool);
    if (written && typeof input.file_path === "string") {
      change(input.file_path, count(metadata.additions), count(metadata.deletions));
    }
    if (event.tool === "file_copy" && typeof input.destination === "string") {
      change(input.destination, count(metadata.additions), count(metadata.deletions));
    }
    if (event.tool === "apply_patch" && Array.isArray(metadata.files)) {
      for (
        const file of metadata.files as {
          path?: unknown;
          additions?: unknown;
          deletions?: unknown;
        }[]
      ) {
        if (typeof file.path === "string") {
          change(file.path, count(file.additions), count(file.deletions));
        }
      }
    }
  }

  /** The summary; `exitCode` is the process's (it may differ when the answer could not be written). */
  markdown(exitCode: number): string {
    const end = this.#end;
    const lines = [
      `## skiff run: ${exitCode === 0 ? "done" : `did not succeed (exit ${exitCode})`}`,
    ];
    lines.push("");
    const facts = [
      this.#sessionId && `session \`${this.#sessionId}\``,
      this.#model && `model \`${inline(this.#model)}\``,
      end && `${end.turns} turn${end.turns === 1 ? "" : "s"}`,
    ].filter(Boolean);
    if (facts.length) lines.push(facts.join(" · "), "");
    if (end?.attribution || this.#error) {
      lines.push("### Why it stopped", "");
      if (end?.attribution) {
        lines.push(`Failure layer: **${end.attribution.layer}** (${end.attribution.reason})`, "");
      }
      if (this.#error) lines.push(quote(this.#error.message), "");
    }
    lines.push("### Answer", "");
    lines.push(end?.text.trim() ? neutraliseControls(end.text.trim()) : "_(no answer)_", "");
    lines.push(`### Files changed (${this.#files.size})`, "");
    if (this.#files.size === 0) lines.push("_none by skiff's file tools_");
    for (const [path, change] of [...this.#files].sort(([a], [b]) => a.localeCompare(b))) {
      lines.push(`- \`${inline(path)}\` +${change.additions} −${change.deletions}`);
    }
    lines.push("");
    if (this.#lastCommand) {
      const command = this.#lastCommand;
      const result = command.exitCode !== undefined
        ? `exit ${command.exitCode}`
        : command.ok
        ? "ran"
        : "did not run";
      lines.push("### Last command", "", `\`${inline(command.command)}\` → ${result}`, "");
    }
    if (end) lines.push("### Tokens and cost", "", ...usageTable(end.usage), "");
    const denials = end?.denials ?? [];
    if (denials.length) {
      lines.push(`### Denied (${denials.length})`, "");
      for (const denial of denials) {
        const allow = denial.allow_with?.length
          ? ` To allow it: \`${inline(denial.allow_with.join(" "))}\``
          : "";
        lines.push(
          `- ${denial.tool} \`${inline(denial.patterns.join(" "))}\`: ${
            inline(denial.reason)
          }.${allow}`,
        );
      }
      lines.push("");
    }
    return lines.join("\n");
  }
}

function usageTable(usage: Usage): string[] {
  const cost = usage.cost_usd === undefined ? "unknown price" : `$${usage.cost_usd.toFixed(4)}`;
  return [
    "| input | cached | output | total | cost |",
    "| ---: | ---: | ---: | ---: | ---: |",
    `| ${usage.input_tokens} | ${
      usage.cached_input_tokens ?? "–"
    } | ${usage.output_tokens} | ${usage.total_tokens} | ${cost} |`,
  ];
}

/** One line of text that cannot break out of inline code or a list item. */
function inline(text: string): string {
  return neutraliseControls(text).replace(/[\r\n]+/g, " ").replace(/`/g, "'");
}

function quote(text: string): string {
  return neutraliseControls(text).split("\n").map((line) => `> ${line}`).join("\n");
}
