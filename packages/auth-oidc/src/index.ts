export { default as workload } from './workload/index.js';
