export { default as deb } from './kinds/deb.js';
export { default as rpm } from './kinds/rpm.js';
export { default as pacman } from './kinds/pacman.js';
export { default as apk } from './kinds/apk.js';
export { default as jetbrains } from './kinds/jetbrains.js';
export { default as generic } from './kinds/generic.js';
