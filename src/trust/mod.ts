/**
 * What a project may grant itself: the one trust decision. A repository
 * arrives with files that can ask skiff for more (allow rules in its
 * skiff.json and agent files, a provider URL that would receive the user's
 * API key, MCP servers that run as the user). None of it applies until the
 * person trusts the project (the question at a terminal, `--trust-project`,
 * `trustedProjects`); trust is of the workspace's git repository.
 * `applyProjectTrust` (`project_trust.ts`) decides and limits the loaded
 * config; `mcp_trust.ts` lists the project's MCP servers and what the
 * user's own rules say of each. docs/security.md has the threat model.
 */
export { applyProjectTrust, decideProjectTrust, isProjectTrusted } from "./project_trust.ts";
export { projectMcpServers, userVerdict } from "./mcp_trust.ts";
