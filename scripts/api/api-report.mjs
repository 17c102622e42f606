// API Extractor reports of the published packages: one `packages/<pkg>/api/<report>.api.md` per
// entry point of each `exports` map (built declarations in dist/, so build first).
//
//   node scripts/api/api-report.mjs            check: fails when a report is out of date
//   node scripts/api/api-report.mjs --update   rewrite the reports (`pnpm api:update`)
//
// A changed report is the public API changing: review it like code.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { Extractor, ExtractorConfig } from '@microsoft/api-extractor';

import { root } from '../pack/pack.mjs';
import { entryPoints } from './entry-points.mjs';

const update = process.argv.includes('--update');
const temp = mkdtempSync(join(tmpdir(), 'rxkube-api-'));

const compilerOptions = {
  target: 'ES2023',
  lib: ['ES2023'],
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  types: ['node'],
  strict: true,
  exactOptionalPropertyTypes: true,
  skipLibCheck: true,
};

const stale = [];
let failed = false;
for (const entry of entryPoints()) {
  mkdirSync(join(entry.dir, 'api'), { recursive: true });
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: entry.dir,
      mainEntryPointFilePath: entry.types,
      compiler: { overrideTsconfig: { compilerOptions, files: [entry.types] } },
      apiReport: {
        enabled: true,
        reportFileName: entry.reportName,
        reportFolder: join(entry.dir, 'api'),
        reportTempFolder: temp,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      newlineKind: 'lf',
      messages: {
        compilerMessageReporting: { default: { logLevel: 'error' } },
        extractorMessageReporting: {
          default: { logLevel: 'error', addToApiReportFile: false },
          // No release tags (@public/@beta): everything exported is public.
          'ae-missing-release-tag': { logLevel: 'none' },
          // A type the API uses but does not export: users cannot name it. Shown in the report
          // (so review sees it) rather than failing the build.
          'ae-forgotten-export': { logLevel: 'none', addToApiReportFile: true },
          // {@link} targets are checked by typedoc (`pnpm docs`), which resolves them as users read them.
          'ae-unresolved-link': { logLevel: 'none', addToApiReportFile: false },
          // Every export's comment and example: scripts/api/doc-check.mjs.
          'ae-undocumented': { logLevel: 'none' },
        },
        // Doc comments are JSDoc-flavoured TSDoc; scripts/api/doc-check.mjs checks what matters
        // to users (a comment and an example on every export).
        tsdocMessageReporting: { default: { logLevel: 'none' } },
      },
    },
    configObjectFullPath: join(entry.dir, 'api-extractor.json'),
    packageJsonFullPath: join(entry.dir, 'package.json'),
  });
  const messages = [];
  const result = Extractor.invoke(config, {
    localBuild: update,
    messageCallback: (message) => {
      message.handled = true;
      if (message.logLevel === 'error' || message.logLevel === 'warning') messages.push(message);
    },
  });
  const report = relative(root, join(entry.dir, 'api', `${entry.reportName}.api.md`));
  // console-* messages narrate the report (created, changed, copied); the result says the same.
  for (const m of messages.filter((x) => !x.messageId.startsWith('console-api-report-'))) {
    failed = true;
    console.error(
      `${entry.name}: ${m.messageId}: ${m.text}${m.sourceFilePath ? ` (${relative(root, m.sourceFilePath)})` : ''}`,
    );
  }
  if (result.apiReportChanged) {
    stale.push(report);
    console.log(`${update ? 'updated' : 'out of date'}: ${report} (${entry.name})`);
  }
}
rmSync(temp, { recursive: true, force: true });

if (failed) process.exit(1);
if (stale.length > 0 && !update) {
  console.error(
    `rxkube: the public API changed without its report: ${stale.join(', ')}.\n` +
      'Run `pnpm api:update` (after `pnpm build`) and commit the reports with the change, so review sees it.',
  );
  process.exit(1);
}
console.log(`api reports: ${entryPoints().length} entry points ${update ? 'written' : 'up to date'}`);
