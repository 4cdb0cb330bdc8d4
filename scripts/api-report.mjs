// The API reports of hub's public packages (decision 0073): api-extractor reads each package's built
// dist/src/index.d.ts and writes api/<package>.api.md, the surface a third party builds on.
// Usage: node scripts/api-report.mjs          update the reports (after `tsc -b`)
//        node scripts/api-report.mjs --check  fail, printing the change, when a surface differs from its report
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const check = process.argv.includes('--check');

/** The packages whose surface is reviewed: folder under packages/ -> report name. */
export const PUBLIC_PACKAGES = ['contract', 'runtime', 'testkit', 'cli', 'admin-kit'];

const messages = {
  compilerMessageReporting: { default: { logLevel: 'warning' } },
  extractorMessageReporting: {
    default: { logLevel: 'warning' },
    // hub marks no release tiers (@public/@beta): every export is public, and the report says so once.
    'ae-missing-release-tag': { logLevel: 'none' },
    // Types reached through an export but not exported by name are listed in the report all the same.
    'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
    // Which members lack TSDoc is not part of the surface.
    'ae-undocumented': { logLevel: 'none', addToApiReportFile: false },
  },
  tsdocMessageReporting: { default: { logLevel: 'none' } },
};

function reportOne(dir, temp) {
  const pkgFolder = path.join(root, 'packages', dir);
  // The entry point is named here, not read from package.json's "types"/"exports", which packaging may change.
  const entry = path.join(pkgFolder, 'dist/src/index.d.ts');
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npx tsc -b\` first`);
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: pkgFolder,
      mainEntryPointFilePath: entry,
      compiler: {
        overrideTsconfig: { compilerOptions: { lib: ['ES2023', 'DOM'], types: ['node'], skipLibCheck: true } },
      },
      apiReport: {
        enabled: true,
        reportFolder: path.join(root, 'api'),
        reportTempFolder: temp,
        reportFileName: dir,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages,
    },
    configObjectFullPath: path.join(pkgFolder, 'api-extractor.json'),
    packageJsonFullPath: path.join(pkgFolder, 'package.json'),
  });
  const result = Extractor.invoke(config, { localBuild: !check, showVerboseMessages: false });
  if (check && result.apiReportChanged) {
    // What changed, before the temporary copy goes.
    const report = `${dir}.api.md`;
    spawnSync('diff', ['-u', path.join(root, 'api', report), path.join(temp, report)], { stdio: 'inherit' });
  }
  return { dir, ok: result.succeeded && !(check && result.apiReportChanged), changed: result.apiReportChanged };
}

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-api-report-'));
let failed = 0;
try {
  for (const dir of PUBLIC_PACKAGES) {
    const r = reportOne(dir, temp);
    if (!r.ok) failed++;
    console.log(
      `${r.dir}: ${r.changed ? (check ? 'CHANGED (run `npm run api:report` and review api/' + dir + '.api.md)' : 'report updated') : 'unchanged'}`,
    );
  }
} finally {
  fs.rmSync(temp, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
