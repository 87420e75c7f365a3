// The lists index.html's boot script declares (`const PAGES = ['memory', ...];`, LIGHT, MODULES),
// read from the page's text: scripts/page_bundles.mjs names the bundles from them and
// tests/e2e/bundles.mjs weighs them.

/// The list `const NAME = [...]` in `html`; throws naming `where` when it is missing.
export function bootList(html, name, where) {
  const m = html.match(new RegExp(`const ${name} = (\\[[^\\]]*\\]);`));
  if (!m) throw new Error(`no ${name} list in the boot script of ${where}`);
  return JSON.parse(m[1].replaceAll("'", '"'));
}
