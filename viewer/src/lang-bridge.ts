// The one place the viewer bundle imports the language's entry point.
export { compile } from '../../src/lang/index';
