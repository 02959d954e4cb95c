// Downloads a file and writes it only if it matches a Subresource Integrity string
// ("sha512-<base64>", as the npm registry gives in dist.integrity):
//   node fetch-checked.mjs URL INTEGRITY OUT
// The Makefile's npm target uses it to fetch npm's own tarball from the npm registry with
// the machine's Node.js, so a machine needs Debian's nodejs package only, not its npm
// package (which brings some 330 node-* packages and takes minutes to install).
import fs from 'node:fs';
import { createHash } from 'node:crypto';

const [url, integrity, out] = process.argv.slice(2);
if (!out) {
  console.error('usage: node fetch-checked.mjs URL INTEGRITY OUT');
  process.exit(2);
}
const dash = integrity.indexOf('-');
const [alg, want] = [integrity.slice(0, dash), integrity.slice(dash + 1)];
const res = await fetch(url);
if (!res.ok) {
  console.error(`${url}: HTTP ${res.status}`);
  process.exit(1);
}
const body = Buffer.from(await res.arrayBuffer());
const got = createHash(alg).update(body).digest('base64');
if (got !== want) {
  console.error(`${url}: ${alg} is ${got}, want ${want}: not written`);
  process.exit(1);
}
fs.writeFileSync(out, body);
