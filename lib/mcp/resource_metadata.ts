/** OAuth protected-resource metadata (SPEC 2.3, RFC 9728). */

/** The SPEC 2.3 document for `resource`. */
export function protectedResourceMetadata(resource: string, authorizationServers: string[]) {
  return {
    resource,
    authorization_servers: authorizationServers,
    bearer_methods_supported: ["header"],
    scopes_supported: ["openid", "profile", "email"],
  };
}

/** The `WWW-Authenticate` value of a 401 on the server at `base` (SPEC 5.1). */
export const wwwAuthenticate = (base: string) =>
  `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource"`;
