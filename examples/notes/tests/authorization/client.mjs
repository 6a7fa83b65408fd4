// A machine client built on the official TypeScript SDK (@modelcontextprotocol/sdk 1.x): it
// knows only the server's URL and its own client credentials, and finds everything else through
// the SDK's OAuth discovery (the server's 401 challenge, its protected resource metadata, the
// authorization server's metadata), gets its token with the client_credentials grant
// (ClientCredentialsProvider) and calls tools with it. It asks for the scopes SCOPE names: the
// SDK (1.32.2) puts the provider's configured scope in a client_credentials request, not the
// one a challenge names, so a machine client is configured with what it needs.
//
//   node client.mjs SDK_DIR URL ISSUER CLIENT_ID CLIENT_SECRET SCOPE [TOOL JSON]...
//
// SDK_DIR holds node_modules/@modelcontextprotocol/sdk. Each TOOL is called with its JSON
// arguments, in order; each call prints one line of JSON, {"tool", "result"} or {"tool",
// "error"} (a refusal is reported, and the next call is made). Failing to connect exits 1.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkDir, url, issuer, clientId, clientSecret, scope, ...calls] = process.argv.slice(2);
const sdk = (path) => import(pathToFileURL(join(sdkDir, 'node_modules', '@modelcontextprotocol', 'sdk', 'dist', 'esm', path)).href);
const { Client } = await sdk('client/index.js');
const { StreamableHTTPClientTransport } = await sdk('client/streamableHttp.js');
const { ClientCredentialsProvider } = await sdk('client/auth-extensions.js');

const authProvider = new ClientCredentialsProvider({ clientId, clientSecret, scope, expectedIssuer: issuer });
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
const client = new Client({ name: 'notes-oauth-client', version: '1.0.0' });
await client.connect(transport);

for (let i = 0; i + 1 < calls.length; i += 2) {
  const tool = calls[i];
  try {
    const result = await client.callTool({ name: tool, arguments: JSON.parse(calls[i + 1]) });
    console.log(JSON.stringify({ tool, result }));
  } catch (error) {
    console.log(JSON.stringify({ tool, error: String(error?.message ?? error) }));
  }
}
await client.close();
