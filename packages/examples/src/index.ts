export { runCoreDemo } from './core-demo.js';
