// Lets a script under script/ run src/ directly on Node 24: src/ imports its siblings as `.js`
// (what the bundle and the tests resolve), which this maps to the `.ts` file beside it. Used with
// --experimental-transform-types (src/ has parameter properties): see `npm run simulate`.
import { existsSync } from 'node:fs'
import { register } from 'node:module'
import { fileURLToPath } from 'node:url'

if (!process.env.SRC_LOADER_HOOKED) {
  process.env.SRC_LOADER_HOOKED = '1'
  register(import.meta.url)
}

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL) {
    const ts = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL)
    if (existsSync(fileURLToPath(ts))) return nextResolve(ts.href, context)
  }
  return nextResolve(specifier, context)
}
