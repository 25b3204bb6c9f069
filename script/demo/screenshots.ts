/*
 * npm run screenshots: the demo's scenarios (success; failure with one still in flight; timeout)
 * run through the current bundle, and their job summary and pull-request comment rendered as
 * GitHub renders them (GFM, GitHub's Markdown CSS, Mermaid) in Debian's Chromium, headless, to
 * PNGs in docs/images/. Fails if a Mermaid block does not render. Needs /usr/bin/chromium
 * (`apt-get install chromium`, see docs/development.md); not part of `npm test`.
 */
import { mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { Marked } from 'marked'
import { chromium } from 'playwright-core'
import { SCENARIOS, withScenario } from './scenarios.ts'
import { ensureFreshBundle, ROOT } from '../build/fresh-bundle.ts'
import { runBundle } from '../../__tests__/support/bundles/run-bundle.ts'

const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium'
const IMAGES = join(ROOT, 'docs', 'images')
const require = createRequire(import.meta.url)
const markdownCss = readFileSync(require.resolve('github-markdown-css/github-markdown-light.css'))
const mermaidJs = require.resolve('mermaid/dist/mermaid.min.js')

/** GFM as GitHub reads it; a ```mermaid block becomes the element Mermaid draws into. */
const markdown = new Marked({ gfm: true }).use({
  renderer: {
    code({ text, lang }) {
      if (lang !== 'mermaid') return false
      const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
      return `<pre class="mermaid">${escaped}</pre>\n`
    }
  }
})

function page(markdownText: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><style>${markdownCss}
body { margin: 0; background: #fff; }
.markdown-body { box-sizing: border-box; width: 1012px; padding: 24px 32px; }
pre.mermaid { background: none; }
</style></head><body><article class="markdown-body">${markdown.parse(markdownText)}</article></body></html>`
}

if (ensureFreshBundle() === 'rebuilt') console.log('dist/ was older than src/: rebuilt it first.')
mkdirSync(IMAGES, { recursive: true })
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync'
  ]
})
try {
  for (const name of SCENARIOS) {
    const { summary, comment, outcome } = await withScenario(name, async (scenario) => {
      const run = await runBundle(scenario.inputs, { env: scenario.env })
      return {
        summary: run.summary,
        comment: scenario.github.comments[0]?.body,
        outcome: run.outputs.outcome
      }
    })
    if (outcome !== name) throw new Error(`scenario ${name} ended in ${outcome}`)
    if (!comment) throw new Error(`scenario ${name} wrote no comment`)
    for (const [what, text] of [
      ['summary', summary],
      ['comment', comment]
    ] as const) {
      const tab = await browser.newPage({ viewport: { width: 1012, height: 600 } })
      // Nothing leaves the machine: the page, its CSS and Mermaid come from here.
      await tab.route('**/*', (route) => route.abort())
      await tab.setContent(page(text))
      await tab.addScriptTag({ path: mermaidJs })
      const errors = await tab.evaluate(async () => {
        const mermaid = (
          window as unknown as {
            mermaid: {
              initialize(config: object): void
              run(options: object): Promise<void>
            }
          }
        ).mermaid
        mermaid.initialize({ startOnLoad: false, theme: 'default' })
        const problems: string[] = []
        try {
          await mermaid.run({ querySelector: 'pre.mermaid', suppressErrors: false })
        } catch (error) {
          problems.push(String(error))
        }
        for (const block of document.querySelectorAll('pre.mermaid')) {
          if (!block.querySelector('svg[aria-roledescription="gantt"]')) {
            problems.push(`a block did not render: ${block.textContent?.slice(0, 80)}`)
          }
          if (/Syntax error/i.test(block.textContent ?? '')) problems.push('Mermaid syntax error')
        }
        return problems
      })
      if (errors.length > 0) throw new Error(`${name} ${what}: ${errors.join('; ')}`)
      const file = join(IMAGES, `${what}-${name}.png`)
      await tab.locator('article').screenshot({ path: file })
      await tab.close()
      console.log(`${file.slice(ROOT.length + 1)}: ${name} ${what}, every Mermaid block rendered`)
    }
  }
} finally {
  await browser.close()
}
