/**
 * `npm run demo`: the example operators against the embedded API server. Until the Kubernetes
 * layers land, it runs the `@rxkube/core` demo.
 */
import { runCoreDemo } from './core-demo.js';

const ok = await runCoreDemo();
process.exitCode = ok ? 0 : 1;
