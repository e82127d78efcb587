/**
 * The one trust decision. A repository arrives with files that can ask skiff
 * to send data somewhere, run code, or widen what the agent may do; whoever
 * wrote them is not necessarily the person running skiff. So a project is
 * untrusted until that person trusts it — the question at a terminal (asked
 * once, remembered in `trustedProjects` of the global config),
 * `--trust-project`, or the folder listed there by hand — whether or not it
 * asks for anything. Everything a project can switch that needs trust is
 * judged here, from that one decision:
 * - its allow rules (`skiff.json`, its `agent` entries, agent files);
 * - sending the user's API key to a `provider.baseURL` it chose;
 * - starting the MCP servers it defines (they run as the user);
 * - and, through `spec.projectTrusted`, a custom command's `model`/`agent`,
 *   an agent file's `model`, and the commands of a `.skiff/done.json` it ships.
 * Trust is of one git repository (its top folder, real path): a repository
 * nested inside a trusted one (a submodule, a vendored clone) is not
 * covered. Some settings need the user's own word even in a trusted project,
 * because they lift the sandbox rather than act inside it: `sandbox.mode:
 * "full-access"`, the Landlock backend, `sandbox.network`, `addDirs` outside
 * the project, and `sandbox.env` (`limitProjectConfig`).
 */
import * as path from "../lib/path.ts";
import type { Config, PermissionConfig } from "../config/schema.ts";
import type { LoadedConfig } from "../config/load.ts";
import { layerValue } from "../config/origin.ts";
import { describeAllows, projectAllows } from "../config/project_allows.ts";
import { isTrustedProject, rememberTrustedProject } from "../config/trusted_projects.ts";
import { FrontmatterParserNotLoaded, parseFrontmatter } from "../definitions/frontmatter.ts";
import { findGitRoot } from "../lib/git_root.ts";
import type { ApprovalAnswer, ApprovalRequest, EngineSpec } from "../engine/types.ts";
import { approves } from "../permission/broker.ts";
import { isWithin, realpathLenient } from "../sandbox/paths.ts";
import { type ProjectServer, userVerdict } from "./mcp_trust.ts";

/**
 * The folder trust is given to: the top of the git repository holding the
 * workspace (real path), else the project config's folder, else the
 * workspace. A repository nested in a trusted one has its own top folder,
 * so the outer one's trust does not reach it.
 */
export function trustRoot(workspace: string, projectRoot?: string): string {
  return realpathLenient(findGitRoot(workspace) ?? projectRoot ?? workspace);
}

/** Whether the user already trusts the workspace's project: listed in the global config. */
export function isProjectTrusted(loaded: LoadedConfig, workspace: string): boolean {
  return isTrustedProject(loaded.global, trustRoot(workspace, loaded.project?.root));
}

export interface TrustInput {
  /** The merged config. */
  config: Config;
  /** The project file's own content, when there is one. */
  project?: { file: string; root: string; config: Config };
  /** Whether the user trusts the project (`decideProjectTrust`). @default false */
  trusted?: boolean;
  /** What the user said themselves: global config, environment, flags. */
  user: {
    mode?: string;
    /** `sandbox.backend` from a flag, the environment or the global config. */
    backend?: string;
    network?: boolean;
    baseURL?: string;
    /** `sandbox.env` names from the global config. */
    envNames?: string[];
  };
}

export interface TrustResult {
  config: Config;
  /** True when the user's API key is kept from a base URL only the project chose. */
  withholdApiKey: boolean;
  warnings: string[];
}

/**
 * The merged config as an untrusted (or trusted) project may shape it. The
 * sandbox settings need the user's own word in any case; the user's API key
 * goes to a project's base URL only when the project is trusted — until then
 * the request carries the project's own key, if it names one, or none.
 */
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
  if (project.config.projects !== undefined) {
    warnings.push(
      `${file} sets projects; ignored. Only your global config keeps rules of your own for a project.`,
    );
  }
  const withholdApiKey = !input.trusted && keyWouldLeave(config, project.config, user.baseURL);
  if (withholdApiKey) {
    // The merged key is the environment's or the global file's whenever those
    // set one (they win over the project), so the project's own key is taken
    // from its own layer, never from the merge.
    const own = project.config.provider?.apiKey;
    const provider = { ...config.provider };
    if (own === undefined) delete provider.apiKey;
    else provider.apiKey = own;
    config.provider = provider;
    warnings.push(
      `${file} points the provider at ${project.config.provider?.baseURL}; your API key is not sent there because the project is not trusted. Pass --trust-project, or set OPENAI_BASE_URL or provider.baseURL in your global config to that address.`,
    );
  }
  if (!input.trusted && headersWouldLeave(config, project.config, user.baseURL)) {
    // Extra headers may carry a credential too (provider.headers): only the project's own go there.
    const provider = { ...config.provider };
    const own = project.config.provider?.headers;
    if (own === undefined) delete provider.headers;
    else provider.headers = own;
    config.provider = provider;
    warnings.push(
      `${file} points the provider at ${project.config.provider?.baseURL}; the provider.headers of your own config are not sent there because the project is not trusted. Pass --trust-project to send them.`,
    );
  }
  return { config, withholdApiKey, warnings };
}

/** Whether headers other than the project's own would go to a base URL only the project chose. */
function headersWouldLeave(
  config: Config,
  project: Config,
  userBaseURL: string | undefined,
): boolean {
  const chosen = project.provider?.baseURL;
  if (chosen === undefined || config.provider?.baseURL !== chosen || userBaseURL === chosen) {
    return false;
  }
  const own = project.provider?.headers ?? {};
  return Object.entries(config.provider?.headers ?? {}).some(([name, value]) =>
    own[name] !== value
  );
}

/** Whether the merged config would send a key other than the project's own to a base URL only the project chose. */
function keyWouldLeave(config: Config, project: Config, userBaseURL: string | undefined): boolean {
  const chosen = project.provider?.baseURL;
  if (chosen === undefined || config.provider?.baseURL !== chosen || userBaseURL === chosen) {
    return false;
  }
  const key = config.provider?.apiKey;
  return key !== undefined && key !== project.provider?.apiKey;
}

/**
 * `limitProjectConfig` for one reading of the config: what the user's own
 * layers (global file, environment, flags) say is taken from that reading.
 */
export function applyProjectTrust(loaded: LoadedConfig, trusted: boolean): TrustResult {
  return limitProjectConfig({
    config: loaded.config,
    project: loaded.project,
    trusted,
    user: userWord(loaded),
  });
}

function userWord(loaded: LoadedConfig): TrustInput["user"] {
  const global = (keyPath: string[]) => layerValue(loaded, "global", keyPath);
  const flags = (keyPath: string[]) => layerValue(loaded, "flags", keyPath);
  return {
    mode: (flags(["sandbox", "mode"]) ?? global(["sandbox", "mode"])) as string | undefined,
    backend: (flags(["sandbox", "backend"]) ?? global(["sandbox", "backend"])) as
      | string
      | undefined,
    network: global(["sandbox", "network"]) as boolean | undefined,
    baseURL: (layerValue(loaded, "env", ["provider", "baseURL"]) ??
      global(["provider", "baseURL"])) as string | undefined,
    envNames: global(["sandbox", "env"]) as string[] | undefined,
  };
}

/** What the project's files ask for that only trust grants. */
export interface TrustSubjects {
  /** The folder trust is remembered for (`trustRoot`). */
  root: string;
  /** Each project file that asks for something, and what, for the question and the warning. */
  files: { file: string; asks: string[] }[];
  /**
   * The project's MCP servers no rule of the user's decides: in the question,
   * not in the warning (`decideProjectServers` warns of each one it blocks).
   */
  servers: ProjectServer[];
  /**
   * The base URL the user's API key would go to, when only the project chose
   * it: in the question, not in the warning (`limitProjectConfig` warns).
   */
  keyTo?: { file: string; baseURL: string };
}

export interface TrustDecision {
  trusted: boolean;
  warnings: string[];
}

/**
 * The decision: trusted on `--trust-project` or when the global config lists
 * the project; otherwise, at a terminal and when the project asks for
 * something, on a yes to the question (then remembered, so it is asked
 * once). Untrusted, what the project asks for is ignored, with one warning
 * naming the flag. `ask` is given only when a person is at the terminal;
 * `--yes` is not trust.
 */
export async function decideProjectTrust(input: {
  subjects: TrustSubjects;
  global?: Config;
  globalFile: string;
  flag: boolean;
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>;
}): Promise<TrustDecision> {
  const { subjects, globalFile } = input;
  if (input.flag || isTrustedProject(input.global, subjects.root)) {
    return { trusted: true, warnings: [] };
  }
  if (!subjects.files.length && !subjects.servers.length && !subjects.keyTo) {
    return { trusted: false, warnings: [] };
  }
  const listed = subjects.files.map(({ file, asks }) => `${file}: ${asks.join(", ")}`);
  if (input.ask) {
    const servers = subjects.servers.map((server) =>
      `${server.source}: starts MCP server ${server.name} as you, outside the sandbox: ${server.target}`
    );
    const key = subjects.keyTo
      ? [`${subjects.keyTo.file}: sends your API key to ${subjects.keyTo.baseURL}`]
      : [];
    const answer = await input.ask({
      tool: "project",
      access: {
        key: "trust_project",
        patterns: [subjects.root],
        preview: `This project's own files ask for:\n${
          [...listed, ...key, ...servers].join("\n")
        }\n\nTrust can be remembered for ${subjects.root} in ${globalFile}.`,
      },
      decision: { action: "ask", reason: "trust this project?", checks: [] },
      always: [],
      subject: "project-trust",
    });
    // "once" is this run only; either "always" is trust remembered.
    if (answer === "once") return { trusted: true, warnings: [] };
    if (approves(answer)) {
      const warnings: string[] = [];
      try {
        await rememberTrustedProject(globalFile, subjects.root);
      } catch (error) {
        warnings.push(`${(error as Error).message} Trusted for this run only.`);
      }
      return { trusted: true, warnings };
    }
  }
  if (!listed.length) return { trusted: false, warnings: [] };
  return {
    trusted: false,
    warnings: [
      `this project is not trusted, so what its own files ask for is ignored (${
        listed.join("; ")
      }); its deny and ask rules still apply. To trust it, pass --trust-project, or add "${subjects.root}" to trustedProjects in ${globalFile}.`,
    ],
  };
}

/**
 * What the project's files ask for: allow rules in its config and agent
 * files, a base URL that would receive the user's API key, and MCP servers
 * (`servers`: those no rule of the user's already decides).
 */
export function findTrustSubjects(
  workspace: string,
  loaded: LoadedConfig,
  /** The project's agent files as already read (src/definitions/agents/files.ts). */
  agentFiles: { file: string; text?: string }[],
  servers: ProjectServer[],
): TrustSubjects {
  const files = new Map<string, string[]>();
  const add = (file: string, asks: string[]) => {
    if (asks.length) files.set(file, [...(files.get(file) ?? []), ...asks]);
  };
  const project = loaded.project;
  if (project) add(project.file, projectAllows(project.config));
  const keyTo = project && keyWouldLeave(loaded.config, project.config, userWord(loaded).baseURL)
    ? { file: project.file, baseURL: project.config.provider!.baseURL! }
    : undefined;
  for (const { file, text } of agentFiles) {
    if (text === undefined) continue;
    try {
      const { data } = parseFrontmatter(file, text);
      add(file, describeAllows(data.permission as PermissionConfig | undefined));
    } catch (error) {
      if (error instanceof FrontmatterParserNotLoaded) throw error;
      // Unreadable or malformed: loading the agents reports it.
    }
  }
  return {
    root: trustRoot(workspace, project?.root),
    files: [...files].map(([file, asks]) => ({ file, asks })),
    servers,
    keyTo,
  };
}

/**
 * Which of the project's MCP servers start: a rule of the user's (global
 * config or flag) decides first; otherwise they start in a trusted project
 * and are blocked in an untrusted one. Blocked names go into
 * `spec.mcp.blocked`, each with a warning saying how to allow it.
 */
export function decideProjectServers(
  spec: TrustSpec & Pick<EngineSpec, "projectTrusted" | "mcp" | "warnings">,
  servers: ProjectServer[],
): void {
  for (const server of servers) {
    const verdict = userVerdict(spec, server.name);
    if (verdict === "allow" || (verdict !== "deny" && spec.projectTrusted)) continue;
    spec.mcp.blocked.push(server.name);
    spec.warnings.push(
      verdict === "deny"
        ? `MCP server "${server.name}" (${server.source}) is not started: a rule denies it.`
        : `MCP server "${server.name}" is defined by the project (${server.source}) and would run as you, outside the sandbox: not started, as the project is not trusted. Trust the project with --trust-project, or allow this server alone with --allow 'mcp_server(${server.name})' or "permission": {"mcp_server": {"${server.name}": "allow"}} in your global config.`,
    );
  }
}

/** Servers still to be decided by trust: the user's own rules decide none of them. */
export function serversForTrust(spec: TrustSpec, servers: ProjectServer[]): ProjectServer[] {
  return servers.filter((server) => userVerdict(spec, server.name) === "ask");
}

type TrustSpec = Pick<EngineSpec, "permissionLayers" | "flags">;
