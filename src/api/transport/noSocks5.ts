/**
 * Stands in for undici's `dispatcher/socks5-proxy-agent.js` in our build (esbuild.mjs): SOCKS5
 * proxying (with its SOCKS client, about 11 KB minified). undici's ProxyAgent builds one only for
 * a `socks:` or `socks5:` proxy URL, and our transport (src/api/transport/http.ts
 * `createProxyAgent`) refuses any proxy URL that is not http: or https: before it makes a
 * ProxyAgent. Should one ever be made, the request fails with this message.
 */
class Socks5ProxyAgent {
  constructor() {
    throw new Error('SOCKS proxies are not part of this build of the gateway client.');
  }
}

// undici requires this module as CommonJS and constructs the export itself.
module.exports = Socks5ProxyAgent;
