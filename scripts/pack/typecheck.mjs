// Type-checks the consumer project in the current directory (its tsconfig.json) as `tsc --noEmit`
// would without skipLibCheck, but reports only the consumer's own files and rxkube's
// declarations (node_modules/@rxkube/**): a third-party package's declarations are its authors'
// business (client-node's, for one, need @types/ws that it does not declare).
import { join } from 'node:path';

import ts from 'typescript';

const configPath = join(process.cwd(), 'tsconfig.json');
const config = ts.getParsedCommandLineOfConfigFile(
  configPath,
  {},
  {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  },
);
if (!config) throw new Error(`cannot read ${configPath}`);
const program = ts.createProgram({ rootNames: config.fileNames, options: config.options });
const ours = (file) =>
  !/[\\/]node_modules[\\/]/.test(file) || /[\\/]node_modules[\\/]@rxkube[\\/]/.test(file);
const checked = program.getSourceFiles().filter((sf) => ours(sf.fileName));
const diagnostics = [
  ...config.errors,
  ...program.getOptionsDiagnostics(),
  ...program.getGlobalDiagnostics(),
  ...checked.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]),
];
const host = {
  getCanonicalFileName: (f) => f,
  getCurrentDirectory: () => process.cwd(),
  getNewLine: () => '\n',
};
if (diagnostics.length > 0) {
  console.error(ts.formatDiagnostics(diagnostics, host));
  process.exit(1);
}
const rxkube = checked.filter((sf) => /[\\/]@rxkube[\\/]/.test(sf.fileName)).length;
console.log(`typecheck ok: ${checked.length - rxkube} consumer files, ${rxkube} rxkube declaration files`);
