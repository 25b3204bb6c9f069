/*
 * Every repository path the docs and the code's comments name exists: a path in backticks in
 * README.md, SECURITY.md, CONTRIBUTING.md and docs/ (a file name alone, `gate.ts`, must be some
 * file of the repository; a path with folders, `api/pace.ts`, must be one, or the end of one), and
 * in src/'s comments also a path written without backticks from a top folder (src/api/pace.ts).
 * CHANGELOG.md is history: it may name what no longer exists.
 */
import { describe, expect, it } from '@jest/globals'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..', '..')
/** Dependencies, git's own files and what the build and the suite write (at the top only). */
const SKIPPED = new Set(['node_modules', '.git', 'coverage', 'build'])

/** Every file and folder of the repository (not its dependencies or build output), `/`-separated. */
function repositoryPaths(dir = root): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (dir === root && SKIPPED.has(entry.name)) return []
    const path = join(dir, entry.name)
    const name = relative(root, path)
    return entry.isDirectory() ? [`${name}/`, ...repositoryPaths(path)] : [name]
  })
}

/** Files named in the docs that live in a dependency, not in the repository. */
const PACKAGE_FILES: Record<string, string> = {
  'api.github.com.json': '@octokit/openapi/generated/api.github.com.json',
  'public-v2-for-users.gen.yaml': '@neondatabase/api-client/public-v2-for-users.gen.yaml'
}

/** Folders the build and the suite write, ignored by git: named, though a fresh clone has none. */
const IGNORED = new Set(
  readFileSync(join(root, '.gitignore'), 'utf8')
    .split('\n')
    .map((line) => line.trim().replace(/^\//, ''))
    .filter(Boolean)
)

const EXTENSION = /\.(ts|mjs|js|json|md|yml|yaml|png|pem|txt)$/
/** What a path looks like: names of letters, digits, `.`, `_`, `-`, `{…,…}` joined by `/`. */
const PATH_SHAPE = /^[\w.{},-]+(\/[\w.{},-]+)*\/?$/

/** Whether a backticked word names a path of ours: a file with an extension, or a folder. */
function isPathLike(word: string): boolean {
  return (
    PATH_SHAPE.test(word) && (EXTENSION.test(word) || word.endsWith('/')) && /[a-z]/i.test(word)
  )
}

/** `docs/images/{a,b}.png` → both names. */
function expandBraces(path: string): string[] {
  const match = /\{([^}]*)\}/.exec(path)
  if (!match) return [path]
  return match[1].split(',').flatMap((choice) => expandBraces(path.replace(match[0], choice)))
}

function resolves(path: string, paths: string[]): boolean {
  if (IGNORED.has(path)) return true
  const packaged = PACKAGE_FILES[path]
  if (packaged) return existsSync(join(root, 'node_modules', packaged))
  return paths.some((candidate) => candidate === path || candidate.endsWith(`/${path}`))
}

function markdownFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`)
  return ['README.md', 'SECURITY.md', 'CONTRIBUTING.md', ...docs]
}

function sourceFiles(dir = join(root, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : [relative(root, join(dir, entry.name))]
  )
}

/** The text of a TypeScript file's comments, line by line (`//` and `/* … *\/`). */
function commentLines(text: string): string[] {
  const lines: string[] = []
  let inBlock = false
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (inBlock || trimmed.startsWith('/*')) {
      lines.push(trimmed)
      inBlock = !trimmed.includes('*/')
      continue
    }
    const inline = line.indexOf('// ')
    if (inline >= 0) lines.push(line.slice(inline))
  }
  return lines
}

/** Where each named path is: `file: path`. */
function namedPaths(): { file: string; path: string }[] {
  const named: { file: string; path: string }[] = []
  const backticked = (file: string, text: string) => {
    for (const match of text.matchAll(/`([^`\s]+)`/g)) {
      if (isPathLike(match[1])) named.push({ file, path: match[1] })
    }
  }
  for (const file of markdownFiles()) {
    // Code blocks are commands and workflows, not prose that names our files.
    backticked(file, readFileSync(join(root, file), 'utf8').replace(/```[\s\S]*?```/g, ''))
  }
  for (const file of sourceFiles()) {
    const comments = commentLines(readFileSync(join(root, file), 'utf8')).join('\n')
    backticked(file, comments)
    for (const match of comments.matchAll(
      /(?<![\w/.-])((?:src|script|docs|__tests__|examples)\/[\w./-]*[\w/])/g
    )) {
      named.push({ file, path: match[1] })
    }
  }
  return named
}

describe('paths in the docs and comments', () => {
  const paths = repositoryPaths()

  it('every path named exists', () => {
    const missing = namedPaths()
      .filter(({ path }) => !expandBraces(path).every((each) => resolves(each, paths)))
      .map(({ file, path }) => `${file}: ${path}`)
    expect([...new Set(missing)]).toEqual([])
  })

  it('finds a wrong path: the check can fail', () => {
    expect(resolves('src/wait/operation-sources.ts', paths)).toBe(true)
    expect(resolves('wait/operation-sources.ts', paths)).toBe(true)
    expect(resolves('operation-sources.ts', paths)).toBe(true)
    expect(resolves('src/operation-sources.ts', paths)).toBe(false)
    expect(resolves('src/resources/', paths)).toBe(false)
    expect(resolves('no-such-file.ts', paths)).toBe(false)
    expect(isPathLike('preview/pr-12')).toBe(false)
    expect(isPathLike('127.0.0.0/8')).toBe(false)
  })
})
