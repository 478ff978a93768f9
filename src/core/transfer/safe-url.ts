/**
 * A URL as it may appear in an error, a log line or `--json` (docs/UPDATER.md §7): scheme,
 * host, port and path only. The query and fragment are dropped (a signed or tokenised URL
 * carries its secret there), so is any user:password, and each given secret (the machine key)
 * is replaced wherever it still appears, raw or percent-encoded.
 */
export function safeUrl(url: URL | string, secrets: readonly string[] = []): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return '(not a valid URL)';
  }
  parsed.username = '';
  parsed.password = '';
  parsed.search = '';
  parsed.hash = '';
  let text = parsed.href;
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of new Set([secret, encodeURIComponent(secret)])) {
      text = text.split(form).join('[redacted]');
    }
  }
  return text;
}
