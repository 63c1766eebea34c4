// SPDX-License-Identifier: MIT
// Validates one glTF asset with the Khronos glTF validator's JS API (validateBytes) and prints a summary.
// Exit codes: 0 no errors, 1 errors, 2 usage / I/O problem. `--json` prints the full report instead.
'use strict';
const fs = require('fs');
const path = require('path');
const validator = require('gltf-validator');

const args = process.argv.slice(2);
const json = args.includes('--json');
const file = args.find((a) => a !== '--json');
if (!file) {
  console.error('usage: validate-gltf FILE [--json]');
  process.exit(2);
}
let bytes;
try {
  bytes = new Uint8Array(fs.readFileSync(file));
} catch (e) {
  console.error(`validate-gltf: ${file}: ${e.message}`);
  process.exit(2);
}
const folder = path.dirname(path.resolve(file));
validator
  .validateBytes(bytes, {
    uri: path.basename(file),
    maxIssues: 0,  // report everything
    // External resources (.bin, images) resolve inside the file's folder only.
    externalResourceFunction: (uri) =>
      new Promise((resolve, reject) => {
        const target = path.resolve(folder, decodeURIComponent(uri));
        if (!target.startsWith(folder + path.sep)) return reject(new Error(`${uri} escapes the folder`));
        fs.readFile(target, (err, data) => (err ? reject(err) : resolve(new Uint8Array(data))));
      }),
  })
  .then((report) => {
    const issues = report.issues;
    if (json) {
      console.log(JSON.stringify(report, null, 2));
    } else {
      console.log(`${file}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ` +
                  `${issues.numInfos} infos, ${issues.numHints} hints (gltf-validator ${report.validatorVersion})`);
      for (const m of issues.messages) {
        if (m.severity > 1) continue;  // 0 error, 1 warning; infos and hints only counted
        console.log(`  ${m.severity === 0 ? 'error' : 'warning'} ${m.code} ${m.pointer || ''}: ${m.message}`);
      }
    }
    process.exit(issues.numErrors > 0 ? 1 : 0);
  })
  .catch((e) => {
    console.error(`validate-gltf: ${file}: ${e}`);
    process.exit(2);
  });
