/**
 * Entry point of scripts/tuf-conformance-client: runs one CLIENT-CLI.md command and exits
 * with its code (explicitly, so no idle keep-alive socket holds the process open).
 */
import { runConformanceCli } from './conformance-cli.js';

process.exit(await runConformanceCli(process.argv.slice(2)));
