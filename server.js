// The server entry OpenCode 2.x looks for first when the plugin is given as a directory
// (`<dir>/server`, then `<dir>/index`): the built plugin, re-exported as it is. Only the
// default export, because the 1.x loader treats every export as a plugin.
export { default } from "./dist/index.js"
