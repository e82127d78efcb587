/**
 * How a request to the model endpoint carries the key: a bearer token, or
 * Azure OpenAI's `api-key` header, beside the user's extra headers. Kept
 * apart from the client so the commands that only list the endpoint's models
 * (doctor, the chat's /model) send the key the same way without loading it.
 */

export interface EndpointAuth {
  baseURL: string;
  apiKey?: string;
  /** @default "api-key" for an Azure OpenAI host, else "bearer" */
  auth?: "bearer" | "api-key";
  headers?: Record<string, string>;
}

/** Azure OpenAI's hosts, which take the key in an `api-key` header. */
export function isAzureHost(baseURL: string): boolean {
  const host = URL.parse(baseURL)?.hostname ?? "";
  return /\.openai\.azure\.com$|\.cognitiveservices\.azure\.com$/i.test(host);
}

/** The key's way of going: what `auth` says, else what the host expects. */
export function authStyle(endpoint: EndpointAuth): "bearer" | "api-key" {
  return endpoint.auth ?? (isAzureHost(endpoint.baseURL) ? "api-key" : "bearer");
}

/**
 * The headers that carry the key and the user's extra ones (which win). No
 * key: none for it. An `api-key` header, set here or by the user, replaces the
 * bearer token.
 */
export function endpointHeaders(endpoint: EndpointAuth): Record<string, string> {
  const headers: Record<string, string> = {};
  if (endpoint.apiKey) {
    if (authStyle(endpoint) === "api-key") headers["api-key"] = endpoint.apiKey;
    else headers.authorization = `Bearer ${endpoint.apiKey}`;
  }
  for (const [name, value] of Object.entries(endpoint.headers ?? {})) {
    headers[name.toLowerCase()] = value;
  }
  if ("api-key" in headers && headers.authorization === `Bearer ${endpoint.apiKey}`) {
    delete headers.authorization;
  }
  return headers;
}
