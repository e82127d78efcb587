/**
 * Runs action.yml's composite steps the way a GitHub runner does, for the
 * action tests: each step's `if:` decides whether it runs (`success()` when
 * none is given), `${{ }}` expressions in `env`, `with` and
 * `working-directory` are replaced from the contexts, a `shell: bash` step
 * runs as `bash --noprofile --norc -eo pipefail <script file>` with only the
 * runner's environment, each step gets its own $GITHUB_OUTPUT file whose
 * lines become `steps.<id>.outputs`, and folders a step adds to $GITHUB_PATH
 * come first on PATH for the steps after it. A `uses:` step is not run: it
 * is recorded with its `with:` evaluated, for the test to check.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { assert, assertEquals } from "../support/assert.ts";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const ACTION_TEXT = await Deno.readTextFile(path.join(ROOT, "action.yml"));

export interface Step {
  id?: string;
  name: string;
  if?: string;
  shell?: string;
  run?: string;
  env?: Record<string, string>;
  uses?: string;
  with?: Record<string, string>;
  "working-directory"?: string;
}
export interface Action {
  name: string;
  branding?: { icon: string; color: string };
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { value: string }>;
  runs: { using: string; steps: Step[] };
}

export const action = parse(ACTION_TEXT) as Action;

/** The step with this id; fails the test when there is none. */
export function step(id: string): Step {
  const found = action.runs.steps.find((candidate) => candidate.id === id);
  assert(found, `action.yml has a step with id ${id}`);
  return found;
}

type Value = string | boolean;

/** bash as found on this machine's PATH, so a step's own PATH may leave it out. */
const BASH = new TextDecoder().decode(
  (await new Deno.Command("bash", { args: ["-c", "command -v bash"] }).output()).stdout,
).trim();

/**
 * Evaluates the part of GitHub's expression language action.yml uses:
 * context paths, 'strings', ==, !=, !, &&, || and always()/success().
 */
export function evaluate(expression: string, lookup: (name: string) => string, failed: boolean) {
  const tokens = expression.match(/'(?:[^']|'')*'|==|!=|&&|\|\||!|\(\)|[\w.-]+/g) ?? [];
  let at = 0;
  const next = () => tokens[at++];
  const primary = (): Value => {
    const token = next();
    assert(token !== undefined, `expression ends early: ${expression}`);
    if (token === "!") return !truthy(primary());
    if (token.startsWith("'")) return token.slice(1, -1).replaceAll("''", "'");
    if (tokens[at] === "()") {
      at++;
      if (token === "always") return true;
      if (token === "success") return !failed;
      if (token === "failure") return failed;
      throw new Error(`the test runner does not know ${token}()`);
    }
    if (token === "true" || token === "false") return token === "true";
    return lookup(token);
  };
  const comparison = (): Value => {
    const left = primary();
    if (tokens[at] === "==" || tokens[at] === "!=") {
      const operator = next();
      const equal = String(left) === String(primary());
      return operator === "==" ? equal : !equal;
    }
    return left;
  };
  const conjunction = (): Value => {
    let value = comparison();
    while (tokens[at] === "&&") {
      next();
      const right = comparison();
      value = truthy(value) ? right : value;
    }
    return value;
  };
  let value = conjunction();
  while (tokens[at] === "||") {
    next();
    const right = conjunction();
    value = truthy(value) ? value : right;
  }
  assertEquals(at, tokens.length, `the test runner read all of: ${expression}`);
  return value;
}

function truthy(value: Value): boolean {
  return value !== "" && value !== false;
}

export interface Runner {
  /** The runner's environment for every step (GITHUB_*, RUNNER_*, PATH, HOME…). */
  env: Record<string, string>;
  /** Where scripts and GITHUB_OUTPUT files go. */
  scratch: string;
  /** Run only the steps with these ids (the others count as skipped). */
  only?: string[];
  /**
   * What a `uses:` step would do here (a cache restored, say), given its
   * evaluated `with:`; what it returns are the step's outputs.
   */
  uses?: (step: Step, inputs: Record<string, string>) => Promise<Record<string, string> | void>;
}

export interface StepResult {
  step: Step;
  ran: boolean;
  code: number;
  /** What the job's log shows of the step: its stdout and stderr, interleaved as written. */
  log: string;
  with?: Record<string, string>;
}

export interface ActionRun {
  steps: StepResult[];
  outputs: Record<string, string>;
  stepOutputs: Record<string, Record<string, string>>;
  /** The folders the steps added to PATH, first added first. */
  paths: string[];
  failed: boolean;
}

function parseOutputs(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  for (const line of text.split("\n").filter((each) => each !== "")) {
    const at = line.indexOf("=");
    assert(at > 0 && !line.slice(0, at).includes("<<"), `an output line the runner reads: ${line}`);
    outputs[line.slice(0, at)] = line.slice(at + 1);
  }
  return outputs;
}

/**
 * All of action.yml's steps for these inputs, as a runner runs them.
 * `context` holds the github.* and runner.* values the expressions read.
 */
export async function runAction(
  inputs: Record<string, string>,
  context: Record<string, string>,
  runner: Runner,
): Promise<ActionRun> {
  for (const name of Object.keys(inputs)) assert(name in action.inputs, `input ${name} exists`);
  const stepOutputs: Record<string, Record<string, string>> = {};
  const lookup = (name: string): string => {
    if (name.startsWith("inputs.")) {
      const input = name.slice("inputs.".length);
      assert(input in action.inputs, `action.yml reads a declared input: ${input}`);
      return inputs[input] ?? action.inputs[input].default ?? "";
    }
    const output = name.match(/^steps\.([\w-]+)\.outputs\.([\w-]+)$/);
    if (output) return stepOutputs[output[1]]?.[output[2]] ?? "";
    assert(name in context, `the test gives the context ${name}`);
    return context[name];
  };
  let failed = false;
  const substitute = (text: string) =>
    text.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
      const value = evaluate(expression, lookup, failed);
      return typeof value === "boolean" ? String(value) : value;
    });
  const paths: string[] = [];
  const results: StepResult[] = [];
  for (const [index, each] of action.runs.steps.entries()) {
    const condition = each.if?.replace(/^\$\{\{\s*|\s*\}\}$/g, "") ?? "success()";
    // An `if:` without a status function gets success() in front, as on GitHub.
    const guarded = /\b(always|success|failure|cancelled)\(\)/.test(condition)
      ? condition
      : `success() && ${condition}`;
    const chosen = !runner.only || (each.id !== undefined && runner.only.includes(each.id));
    if (!chosen || !truthy(evaluate(guarded, lookup, failed))) {
      results.push({ step: each, ran: false, code: 0, log: "" });
      continue;
    }
    if (each.uses) {
      const evaluated = Object.fromEntries(
        Object.entries(each.with ?? {}).map(([key, value]) => [key, substitute(String(value))]),
      );
      const outputs = await runner.uses?.(each, evaluated);
      if (each.id) stepOutputs[each.id] = outputs ?? {};
      results.push({ step: each, ran: true, code: 0, log: "", with: evaluated });
      continue;
    }
    assertEquals(each.shell, "bash", `step "${each.name}" runs in bash`);
    const script = path.join(runner.scratch, `step-${index}.sh`);
    const outputFile = path.join(runner.scratch, `output-${index}`);
    const pathFile = path.join(runner.scratch, `path-${index}`);
    // One stream, as the job's log has it.
    await Deno.writeTextFile(script, `exec 2>&1\n${each.run!}`);
    await Deno.writeTextFile(outputFile, "");
    await Deno.writeTextFile(pathFile, "");
    const env: Record<string, string> = {
      ...runner.env,
      PATH: [...paths].reverse().concat(runner.env.PATH).join(":"),
      GITHUB_OUTPUT: outputFile,
      GITHUB_PATH: pathFile,
    };
    for (const [name, value] of Object.entries(each.env ?? {})) env[name] = substitute(value);
    const workspace = context["github.workspace"];
    const cwd = path.resolve(workspace, substitute(each["working-directory"] ?? "."));
    const output = await new Deno.Command(BASH, {
      args: ["--noprofile", "--norc", "-eo", "pipefail", script],
      cwd,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const decoder = new TextDecoder();
    results.push({
      step: each,
      ran: true,
      code: output.code,
      log: decoder.decode(output.stdout),
    });
    if (each.id) stepOutputs[each.id] = parseOutputs(await Deno.readTextFile(outputFile));
    paths.push(...(await Deno.readTextFile(pathFile)).split("\n").filter((line) => line !== ""));
    if (output.code !== 0) failed = true;
  }
  const outputs = Object.fromEntries(
    Object.entries(action.outputs).map(([name, spec]) => [name, substitute(spec.value)]),
  );
  return { steps: results, outputs, stepOutputs, paths, failed };
}
