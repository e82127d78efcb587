/**
 * A project config file arrives with the repository, so it is not trusted to
 * widen what skiff may do on the user's machine. It may tighten anything and
 * choose models and rules inside the sandbox, but these need the user's own
 * word (global config, environment or a flag):
 * - `sandbox.mode: "full-access"`, `sandbox.backend: "landlock"` and `sandbox.network: true`;
 * - `sandbox.addDirs` outside the project;
 * - `sandbox.env`: passing the user's environment variables to commands;
 * - sending the user's API key to a `provider.baseURL` the project chose.
 * Its allow rules (and those of the agent files it ships) apply only once
 * the user trusts the project (`decideProjectTrust`).
 */
import * as path from "../contracts/path.ts";
import type { Config, PermissionConfig } from "../config/schema.ts";
import { describeAllows, projectAllows } from "../config/project_allows.ts";
import { isTrustedProject, rememberTrustedProject } from "../config/trusted_projects.ts";
import { FrontmatterParserNotLoaded, parseFrontmatter } from "../agents/frontmatter.ts";
import { projectDirs } from "../agents/discovery.ts";
import type { ApprovalAnswer, ApprovalRequest } from "./engine_types.ts";
import { approves } from "../policy/broker.ts";
import { isWithin, realpathLenient } from "../sandbox/paths.ts";

export interface TrustInput {
  /** The merged config. */
  config: Config;
  /** The project file's own content, when there is one. */
  project?: { file: string; root: string; config: Config };
  /** What the user said themselves: global config, environment, flags. */
  user: {
    mode?: string;
    /** `sandbox.backend` from a flag, the environment or the global config. */
    backend?: string;
    network?: boolean;
    baseURL?: string;
    apiKeyFromProject: boolean;
    /** `sandbox.env` names from the global config. */
    envNames?: string[];
  };
}

export interface TrustResult {
  config: Config;
  /** True when the API key must not be sent to this base URL. */
  withholdApiKey: boolean;
  warnings: string[];
}

export function limitProjectConfig(input: TrustInput): TrustResult {
  const { project, user } = input;
  const config: Config = structuredClone(input.config);
  const warnings: string[] = [];
  if (!project) return { config, withholdApiKey: false, warnings };
  const projectSandbox = project.config.sandbox ?? {};
  const file = project.file;

  if (projectSandbox.mode === "full-access" && user.mode !== "full-access") {
    const mode = (user.mode ?? "workspace-write") as NonNullable<Config["sandbox"]>["mode"];
    config.sandbox = { ...config.sandbox, mode };
    warnings.push(
      `${file} asks for sandbox mode full-access; ignored (running ${mode}). A project file cannot lift the sandbox: pass --sandbox full-access or set it in your global config.`,
    );
  }
  // Landlock covers less than bubblewrap (docs/security.md); forcing bwrap only tightens.
  if (projectSandbox.backend === "landlock" && user.backend !== "landlock") {
    const backend = (user.backend ?? "auto") as NonNullable<Config["sandbox"]>["backend"];
    config.sandbox = { ...config.sandbox, backend };
    warnings.push(
      `${file} chooses the Landlock sandbox backend; ignored (using ${backend}). A project file cannot choose the weaker backend: pass --sandbox-backend landlock or set sandbox.backend in your global config.`,
    );
  }
  if (projectSandbox.network === true && user.network !== true) {
    config.sandbox = { ...config.sandbox, network: false };
    warnings.push(
      `${file} turns on network access for commands; ignored. Set sandbox.network in your global config to allow it.`,
    );
  }
  if (projectSandbox.addDirs?.length) {
    // Judged on the real path: `cache -> /` is inside by name only.
    const root = realpathLenient(project.root);
    const outside = projectSandbox.addDirs
      .map((dir) => path.resolve(project.root, dir))
      .filter((dir) => !isWithin(root, realpathLenient(dir)));
    if (outside.length) {
      config.sandbox = {
        ...config.sandbox,
        addDirs: (config.sandbox?.addDirs ?? []).filter((dir) =>
          !outside.includes(path.resolve(project.root, dir))
        ),
      };
      warnings.push(
        `${file} adds folders outside the project (${
          outside.join(", ")
        }); ignored. Use --add-dir to allow them.`,
      );
    }
  }
  // A database URL or a cloud key in the user's environment is not the
  // project's to hand to commands (whose output the model reads).
  const untrustedEnv = (projectSandbox.env ?? []).filter(
    (name) => !(user.envNames ?? []).includes(name),
  );
  if (untrustedEnv.length) {
    config.sandbox = {
      ...config.sandbox,
      env: (config.sandbox?.env ?? []).filter((name) => !untrustedEnv.includes(name)),
    };
    warnings.push(
      `${file} passes environment variables to commands (${
        untrustedEnv.join(", ")
      }); ignored. List them in sandbox.env of your global config to allow it.`,
    );
  }
  if (project.config.trustedProjects !== undefined) {
    warnings.push(
      `${file} sets trustedProjects; ignored. Only your global config can say which projects you trust.`,
    );
  }
  const projectBaseURL = project.config.provider?.baseURL;
  const withholdApiKey = projectBaseURL !== undefined &&
    config.provider?.baseURL === projectBaseURL &&
    user.baseURL !== projectBaseURL &&
    !user.apiKeyFromProject &&
    config.provider?.apiKey !== undefined;
  if (withholdApiKey) {
    warnings.push(
      `${file} points the provider at ${projectBaseURL}; your API key is not sent there. Set OPENAI_BASE_URL or provider.baseURL in your global config to trust it.`,
    );
  }
  return { config, withholdApiKey, warnings };
}

export interface ProjectAllows {
  /** The project folder the trust is remembered for (real path). */
  root: string;
  /** Each project file with allow rules, and the rules, for the question and the warning. */
  files: { file: string; rules: string[] }[];
}

export interface TrustDecision {
  trusted: boolean;
  warnings: string[];
}

/**
 * Whether the project's own allow rules apply: on `--trust-project`, when the
 * global config lists the project, or on a yes at the terminal (then
 * remembered in the global config, so it is asked once). Otherwise they are
 * ignored, with a warning naming the flag. `ask` is given only when a person
 * is at the terminal; `--yes` is not trust.
 */
export async function decideProjectTrust(input: {
  allows: ProjectAllows;
  global?: Config;
  globalFile: string;
  flag: boolean;
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
}): Promise<TrustDecision> {
  const { allows, globalFile } = input;
  if (!allows.files.length || input.flag || isTrustedProject(input.global, allows.root)) {
    return { trusted: true, warnings: [] };
  }
  const listed = allows.files.map(({ file, rules }) => `${file}: ${rules.join(", ")}`);
  if (input.ask) {
    const answer = await input.ask({
      tool: "project",
      access: {
        key: "trust_project",
        patterns: [allows.root],
        preview: `This project's own files allow, without asking:\n${
          listed.join("\n")
        }\n\nA yes is remembered for ${allows.root} in ${globalFile}.`,
      },
      decision: { action: "ask", reason: "trust this project's allow rules?", checks: [] },
      always: [],
    });
    if (approves(answer)) {
      const warnings: string[] = [];
      try {
        await rememberTrustedProject(globalFile, allows.root);
      } catch (error) {
        warnings.push(`${(error as Error).message} Trusted for this run only.`);
      }
      return { trusted: true, warnings };
    }
  }
  return {
    trusted: false,
    warnings: [
      `this project is not trusted, so the allow rules in its own files are ignored (${
        listed.join("; ")
      }); its deny and ask rules still apply. To apply them, pass --trust-project, or add "${allows.root}" to trustedProjects in ${globalFile}.`,
    ],
  };
}

/** Allow rules in the project's own config and agent files. */
export function findProjectAllows(
  workspace: string,
  project: { file: string; root: string; config: Config } | undefined,
  /** The project's agent files as already read (src/agents/files.ts). */
  agentFiles: { file: string; text?: string }[],
): ProjectAllows {
  const files: ProjectAllows["files"] = [];
  if (project) {
    const rules = projectAllows(project.config);
    if (rules.length) files.push({ file: project.file, rules });
  }
  for (const { file, text } of agentFiles) {
    if (text === undefined) continue;
    try {
      const { data } = parseFrontmatter(file, text);
      const rules = describeAllows(data.permission as PermissionConfig | undefined);
      if (rules.length) files.push({ file, rules });
    } catch (error) {
      if (error instanceof FrontmatterParserNotLoaded) throw error;
      // Unreadable or malformed: loading the agents reports it.
    }
  }
  const root = project?.root ?? projectDirs(workspace)[0];
  return { root: realpathLenient(root), files };
}
