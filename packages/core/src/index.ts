export {};
export { debounceByKey } from './debounce-by-key.js';
export type { DebounceByKeyOptions } from './debounce-by-key.js';
