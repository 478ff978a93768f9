/**
 * Artifact URLs of a pull, resolved against the base URL without a URL parse per artifact: a
 * parse of a relative URL parses its base again, and at 10,000 small artifacts that was a
 * measurable share of the request path (docs/UPDATER.md §8, "Many small artifacts"). A plain
 * relative path (the form the registry writes) under a base the parser leaves as written is
 * joined as text, which is what the parser gives for it; anything else is parsed
 * (`resolveArtifactUrl`, docs/PROTOCOL.md).
 */
import { resolveArtifactUrl } from '#protocol/manifest.js';

/** Unreserved characters, '%' and '/', not starting with '/': a path the parser keeps as is. */
const PLAIN_RELATIVE = /^[A-Za-z0-9._~%-][A-Za-z0-9._~%/-]*$/;
/**
 * A dot segment ('.', '..', or their %2e forms) the parser would resolve away, in a relative
 * path or in an absolute path with its query (the node fetcher's request-target.ts).
 */
export const DOT_SEGMENT = /(?:^|\/)(?:\.|%2e){1,2}(?:[/?]|$)/i;

export class ArtifactUrls {
  /** The base as a directory ('…/'), when joining text to it is what the parser would do. */
  private readonly dir: string | undefined;

  constructor(private readonly baseUrl: string) {
    const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
    let dir: string | undefined;
    try {
      const url = new URL(base);
      const plain =
        url.href === base && url.search === '' && url.hash === '' && url.username === '';
      const web = url.protocol === 'http:' || url.protocol === 'https:';
      if (plain && web && url.password === '') dir = base;
    } catch {
      dir = undefined;
    }
    this.dir = dir;
  }

  /**
   * The absolute URL of an artifact, as `resolveArtifactUrl` would serialise it; throws as it
   * does (policy.ts has refused a manifest whose URLs do not resolve).
   */
  resolve(url: string): string {
    if (this.dir !== undefined && PLAIN_RELATIVE.test(url) && !DOT_SEGMENT.test(url)) {
      return `${this.dir}${url}`;
    }
    return resolveArtifactUrl(this.baseUrl, url).href;
  }
}
