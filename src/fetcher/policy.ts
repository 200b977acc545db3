import type { ProxyConfig } from '../config.js';
import type { FetchPolicy } from './index.js';

/** issue #13: at most 3 redirects, each hop checked again. */
export const MAX_REDIRECTS = 3;

/** The fetch policy of this instance (DAM_PROXY_*), shared by the image proxy and every other outside fetch. */
export function policyFromConfig(proxy: ProxyConfig): FetchPolicy {
  return {
    allowHosts: proxy.allowHosts,
    ports: proxy.ports,
    maxBytes: proxy.maxBytes,
    timeoutMs: proxy.timeoutMs,
    maxRedirects: MAX_REDIRECTS,
  };
}
