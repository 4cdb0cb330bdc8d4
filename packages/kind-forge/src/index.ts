export { default as github } from './kinds/github.js';
export { default as gitlab } from './kinds/gitlab.js';
export { default as forgejo } from './kinds/forgejo.js';
