// An OAuth 2.1 authorization server for the notes server's tests: panva's oidc-provider on a
// free loopback port, with client credentials, resource indicators (RFC 8707) and JWT access
// tokens. Run as `node provider.mjs INSTALL_DIR`, where INSTALL_DIR holds
// node_modules/oidc-provider. Its first line on stdout is JSON: the issuer, the PKCS#8 DER
// (base64) of the key that signs its tokens and of another key, and the signing key's kid, so
// that a test can forge the tokens a real server never issues.
//
// Clients (all client_credentials, secret = "<id>-secret"):
//   reader         may ask for notes:read
//   writer         may ask for notes:read and notes:write
//   opaque-reader  notes:read, its access tokens opaque (checked by introspection)
//   notes-server   the resource server itself, which introspects tokens

import { createServer } from 'node:http';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [installDir] = process.argv.slice(2);
const entry = join(installDir, 'node_modules', 'oidc-provider', 'lib', 'index.js');
const { default: Provider } = await import(pathToFileURL(entry).href);

const newKey = () => generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey;
const signing = newKey();
const other = newKey();
const kid = 'notes-test-key';

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const client = (id, scope) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  ...(scope ? { scope } : {}),
});

const provider = new Provider(issuer, {
  jwks: { keys: [{ ...signing.export({ format: 'jwk' }), kid, alg: 'ES256', use: 'sig' }] },
  clientDefaults: { id_token_signed_response_alg: 'ES256' },
  clients: [
    client('reader', 'notes:read'),
    client('writer', 'notes:read notes:write'),
    client('opaque-reader', 'notes:read'),
    client('notes-server'),
  ],
  scopes: ['notes:read', 'notes:write'],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => undefined,
      useGrantedResource: () => true,
      // Any resource the client names: the token's audience is that resource.
      getResourceServerInfo: (ctx, resource, requester) => ({
        scope: 'notes:read notes:write',
        audience: resource,
        accessTokenTTL: 300,
        accessTokenFormat: requester.clientId.startsWith('opaque') ? 'opaque' : 'jwt',
        jwt: { sign: { alg: 'ES256' } },
      }),
    },
  },
});
server.on('request', provider.callback());

const der = (key) => key.export({ format: 'der', type: 'pkcs8' }).toString('base64');
console.log(JSON.stringify({ issuer, signing_key: der(signing), other_key: der(other), kid }));
