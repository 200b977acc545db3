// For tools that read .ts files without Vue's language service (ESLint's type information).
// vue-tsc and Vite resolve .vue files themselves, so this declaration does not apply to them.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent<object, object, unknown>;
  export default component;
}
