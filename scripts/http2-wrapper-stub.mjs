// Stands in for http2-wrapper in the CLI bundle (scripts/build-cli.mjs). got imports it at
// load time but uses it only with its `http2` option, which src/node/got-fetcher.ts never sets;
// loading the real one cost every CLI start node:http2 and a TLS socket (docs/UPDATER.md §7).
const refuse = () => {
  throw new Error('http2-wrapper is not bundled in the CLI: got must not be asked for HTTP/2');
};
export default {
  get auto() {
    return refuse();
  },
  get globalAgent() {
    return refuse();
  },
};
